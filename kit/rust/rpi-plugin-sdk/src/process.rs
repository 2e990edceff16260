//! `process::ProcessTree` (feature `process`, Unix): run a child in its own process group so the whole tree
//! can be terminated, without leaking the plugin host's pipes into it.
//!
//! Why this matters in pier: the plugin host's stdin/stdout are pier's protocol channel. A child that
//! inherits them could write into the channel or keep it open after the plugin is gone, so `ProcessTree`
//! closes every inherited descriptor above stderr in the child and defaults the child's stdio to null.
//! Built on std plus `kill`, `close_range` and `close` declared here (no libc crate).

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
    fn close_range(first: u32, last: u32, flags: i32) -> i32;
    fn close(fd: i32) -> i32;
}

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;

/// A command whose stdin, stdout and stderr are null (override them before spawning as needed).
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    cmd
}

/// A spawned child leading its own process group; dropping it terminates the group.
pub struct ProcessTree {
    child: Child,
    finished: Option<ExitStatus>,
}

impl ProcessTree {
    /// Spawns `cmd` as a process-group leader with every inherited descriptor above 2 closed in the child.
    /// Set the child's stdio explicitly (or build it with [`command`]): std's default inherits the plugin
    /// host's, which in pier is the protocol channel.
    pub fn spawn(cmd: &mut Command) -> io::Result<ProcessTree> {
        cmd.process_group(0);
        // SAFETY: the hook runs between fork and exec and only makes async-signal-safe calls.
        unsafe {
            cmd.pre_exec(|| {
                close_inherited_descriptors();
                Ok(())
            });
        }
        let child = cmd.spawn()?;
        Ok(ProcessTree { child, finished: None })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// The exit status if the leader has ended (does not block).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if self.finished.is_none() {
            self.finished = self.child.try_wait()?;
        }
        Ok(self.finished)
    }

    /// Sends SIGTERM to the group and to every descendant found under /proc (children that left the group
    /// included), waits up to `grace` for the leader, then SIGKILLs whatever is left and reaps the leader.
    pub fn terminate(&mut self, grace: Duration) -> io::Result<ExitStatus> {
        if let Some(status) = self.try_wait()? {
            self.signal_tree(SIGKILL);
            return Ok(status);
        }
        self.signal_tree(SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Some(status) = self.try_wait()? {
                self.signal_tree(SIGKILL);
                return Ok(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.signal_tree(SIGKILL);
        let status = self.child.wait()?;
        self.finished = Some(status);
        Ok(status)
    }

    fn signal_tree(&self, signal: i32) {
        let leader = self.child.id() as i32;
        let descendants = descendants_of(leader);
        // SAFETY: plain syscalls on pids we spawned (the group id is the leader's pid).
        unsafe {
            kill(-leader, signal);
            for pid in descendants {
                kill(pid, signal);
            }
        }
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        let _ = self.terminate(Duration::from_millis(200));
    }
}

/// Closes every descriptor above stderr in the calling process (used in the child before exec).
fn close_inherited_descriptors() {
    // SAFETY: close_range/close are async-signal-safe; fds 0-2 are kept.
    unsafe {
        if close_range(3, u32::MAX, 0) != 0 {
            for fd in 3..4096 {
                close(fd);
            }
        }
    }
}

/// Every live descendant of `root`, found by walking /proc's parent links.
pub fn descendants_of(root: i32) -> Vec<i32> {
    let mut parents: Vec<(i32, i32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
            // The command name is parenthesised and may hold spaces: the ppid follows the last ')'.
            let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
            let mut fields = rest.split_whitespace();
            let _state = fields.next();
            if let Some(ppid) = fields.next().and_then(|s| s.parse::<i32>().ok()) {
                parents.push((pid, ppid));
            }
        }
    }
    let mut found = vec![root];
    let mut index = 0;
    while index < found.len() {
        let parent = found[index];
        for &(pid, ppid) in &parents {
            if ppid == parent && !found.contains(&pid) {
                found.push(pid);
            }
        }
        index += 1;
    }
    found.remove(0);
    found
}
