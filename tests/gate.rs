//! End-to-end tests of `driftgate gate pre|post` over a real `driftgate mockup serve` serving
//! a copy of the seed-1 host's recorded iDRAC, switched between states the way a firmware
//! update would, with its recorded Windows collector output, a temporary baseline store and
//! an inventory.

#![allow(clippy::unwrap_used)] // a test that cannot set up should panic where it stands

mod common;

use common::gate::{Lab, folders};

#[test]
fn smoke() {
    let lab = Lab::new();
    let pre = lab.gate(&["pre", "--run", "CHG-1", "azl-node01"]);
    eprintln!("{}\n{}", pre.stdout, pre.stderr);
    let pre = pre.expect(0);
    lab.state("benign-update");
    let post = lab.gate(&["post", "--run", "CHG-1", "--promote"]);
    eprintln!("{}\n{}", post.stdout, post.stderr);
    post.expect(0);
    eprintln!("{:?}", folders(&lab.run_dir("CHG-1")));
    eprintln!("{}", common::git(&lab.store, &["log", "-1", "--format=%B"]));
    let _ = pre;
}
