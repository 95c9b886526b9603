//! Link flags for the `driftgate` binary.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // `cargo release-build` links the binary with this function order: a new one must relink.
    println!("cargo:rerun-if-changed=scripts/startup-order.txt");
    if packed_relocations() {
        // Every short command (`baseline show`, `--version`) pays for the dynamic loader's
        // relocation pass at start-up: 20,000 relative relocations, a 480 KB table read at
        // each start. Packed (DT_RELR) the table is 4 KB and `show` starts 0.16 ms sooner
        // (BENCHMARKS.md, twelfth round).
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the binary can be linked with packed relative relocations: a native build for
/// glibc 2.36 or newer, which loads them (distributions with it ship binutils 2.38 or newer,
/// which writes them). A binary linked so needs glibc 2.36 to start.
fn packed_relocations() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("TARGET") != var("HOST") || !var("TARGET").ends_with("-linux-gnu") {
        return false;
    }
    glibc_at_least(2, 36)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn glibc_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: glibc returns a static NUL-terminated string such as "2.36".
    let version = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    let mut parts = version
        .to_str()
        .unwrap_or("")
        .split('.')
        .map(str::parse::<u32>);
    match (parts.next(), parts.next()) {
        (Some(Ok(have_major)), Some(Ok(have_minor))) => (have_major, have_minor) >= (major, minor),
        _ => false,
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn glibc_at_least(_major: u32, _minor: u32) -> bool {
    false
}
