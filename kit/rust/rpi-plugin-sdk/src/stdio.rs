//! `stdio::StdinLines` (feature `stdio`, Unix): line input for `ownsStdio` servers without a background
//! thread. A thread blocked in `read(0)` cannot be joined, so it would hold up `SessionShutdown`; instead
//! stdin is switched to non-blocking (`fcntl`) and read only when asked, with `poll(2)` available to wait
//! for input with a timeout. The original flags are restored on drop. Pipes and files only (a console is
//! not this helper's job); the caller must own stdin exclusively.

use std::io;
use std::time::Duration;

#[repr(C)]
struct PollFd {
    fd: i32,
    events: i16,
    revents: i16,
}

extern "C" {
    fn fcntl(fd: i32, cmd: i32, ...) -> i32;
    fn read(fd: i32, buf: *mut u8, count: usize) -> isize;
    fn poll(fds: *mut PollFd, nfds: u64, timeout: i32) -> i32;
}

const F_GETFL: i32 = 3;
const F_SETFL: i32 = 4;
const O_NONBLOCK: i32 = 0o4000;
const POLLIN: i16 = 1;

/// One result of [`StdinLines::poll_line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputLine {
    /// A complete line without its `\n` (or `\r\n`); a final unterminated line is delivered before `Eof`.
    Line(String),
    /// No complete line yet: wait (e.g. [`StdinLines::wait`]) and poll again.
    Pending,
    /// The input ended.
    Eof,
}

/// Non-blocking line reader over a file descriptor (stdin by default).
pub struct StdinLines {
    fd: i32,
    original_flags: Option<i32>,
    buffer: Vec<u8>,
    eof: bool,
}

impl StdinLines {
    /// Reads stdin (fd 0).
    pub fn new() -> io::Result<Self> {
        Self::from_fd(0)
    }

    /// Reads `fd` (which the caller owns for the reader's lifetime).
    pub fn from_fd(fd: i32) -> io::Result<Self> {
        // SAFETY: fcntl on a descriptor the caller owns; flags are restored on drop.
        let flags = unsafe { fcntl(fd, F_GETFL) };
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        if unsafe { fcntl(fd, F_SETFL, flags | O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(StdinLines { fd, original_flags: Some(flags), buffer: Vec::new(), eof: false })
    }

    fn take_line(&mut self) -> Option<String> {
        let end = self.buffer.iter().position(|&b| b == b'\n')?;
        let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Some(String::from_utf8_lossy(&line).into_owned())
    }

    /// Returns a buffered line, or reads what is available without blocking.
    pub fn poll_line(&mut self) -> io::Result<InputLine> {
        loop {
            if let Some(line) = self.take_line() {
                return Ok(InputLine::Line(line));
            }
            if self.eof {
                if self.buffer.is_empty() {
                    return Ok(InputLine::Eof);
                }
                let rest = std::mem::take(&mut self.buffer);
                return Ok(InputLine::Line(String::from_utf8_lossy(&rest).into_owned()));
            }
            let mut chunk = [0u8; 8192];
            // SAFETY: reading into a local buffer of the given length.
            let n = unsafe { read(self.fd, chunk.as_mut_ptr(), chunk.len()) };
            if n > 0 {
                self.buffer.extend_from_slice(&chunk[..n as usize]);
                continue;
            }
            if n == 0 {
                self.eof = true;
                continue;
            }
            let error = io::Error::last_os_error();
            match error.kind() {
                io::ErrorKind::WouldBlock => return Ok(InputLine::Pending),
                io::ErrorKind::Interrupted => continue,
                _ => return Err(error),
            }
        }
    }

    /// Waits up to `timeout` for input to become readable (or the end); `true` when it did. Use it between
    /// `Pending` results, in slices short enough to notice your own cancellation.
    pub fn wait(&self, timeout: Duration) -> io::Result<bool> {
        if self.eof || self.buffer.contains(&b'\n') {
            return Ok(true);
        }
        let mut fds = PollFd { fd: self.fd, events: POLLIN, revents: 0 };
        let millis = timeout.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one pollfd on the stack.
        let rc = unsafe { poll(&mut fds, 1, millis) };
        if rc < 0 {
            let error = io::Error::last_os_error();
            return if error.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(error) };
        }
        Ok(rc > 0)
    }
}

impl Drop for StdinLines {
    fn drop(&mut self) {
        if let Some(flags) = self.original_flags.take() {
            // SAFETY: restoring the flags read in from_fd.
            unsafe { fcntl(self.fd, F_SETFL, flags) };
        }
    }
}
