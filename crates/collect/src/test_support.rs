//! What the sources' unit tests share (they cannot reach `tests/it/common`).

/// A copy of the flat folder `dir` (a `dir:` recording) in a temporary folder, to change.
pub fn copy_recording(dir: &std::path::Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().expect("a temporary folder");
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let entry = entry.expect("a readable folder entry");
        std::fs::copy(entry.path(), copy.path().join(entry.file_name()))
            .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
    }
    copy
}

/// The head of the next HTTP request on `stream` (up to its blank line), as the test servers
/// of the Redfish client read it; what came when the peer closes early.
pub async fn request_head(stream: &mut tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt as _;
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0];
        if stream.read(&mut byte).await.unwrap_or(0) == 0 {
            break;
        }
        head.push(byte[0]);
    }
    head
}
