use crate::process::{command, descendants_of, ProcessTree};
use std::time::{Duration, Instant};

fn alive(pid: i32) -> bool {
    // A zombie still has a /proc entry; its state letter is Z.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit_once(')').map(|(_, rest)| rest.trim_start().starts_with('Z')).unwrap_or(false),
        Err(_) => false,
    }
}

#[test]
fn terminate_ends_the_leader_and_its_descendants() {
    // The grandchild leaves the process group (setsid) so only the /proc walk can find it.
    let mut cmd = command("sh");
    cmd.args(["-c", "sleep 30 & setsid sleep 31 & wait"]);
    let mut tree = ProcessTree::spawn(&mut cmd).expect("spawn sh");
    let leader = tree.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut kids = Vec::new();
    while Instant::now() < deadline {
        kids = descendants_of(leader);
        if kids.len() >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(kids.len() >= 2, "expected two sleeping descendants, saw {kids:?}");
    tree.terminate(Duration::from_millis(500)).expect("terminate");
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && kids.iter().any(|&pid| alive(pid)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(kids.iter().all(|&pid| !alive(pid)), "descendants survived: {kids:?}");
}

#[test]
fn the_child_does_not_inherit_descriptors_above_stderr() {
    // A pipe opened without CLOEXEC would leak into a plain Command child; ProcessTree closes it.
    let file = std::fs::File::open("/proc/self/status").unwrap();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
    extern "C" {
        fn dup(fd: i32) -> i32;
    }
    let leaked = unsafe { dup(fd) }; // dup() clears FD_CLOEXEC on the copy
    let mut cmd = command("sh");
    cmd.args(["-c", &format!("test -e /proc/self/fd/{leaked} && exit 9; exit 0")]);
    let mut tree = ProcessTree::spawn(&mut cmd).unwrap();
    let status = tree.child().wait().unwrap();
    assert_eq!(status.code(), Some(0), "fd {leaked} reached the child");
}
