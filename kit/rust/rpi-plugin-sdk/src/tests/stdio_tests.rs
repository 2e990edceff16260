use crate::stdio::{InputLine, StdinLines};
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn lines_then_an_unterminated_tail_then_eof() {
    let mut child = Command::new("sh")
        .args(["-c", "printf 'one\\r\\ntwo\\n'; sleep 0.3; printf 'tail'"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = StdinLines::from_fd(stdout.as_raw_fd()).unwrap();
    let mut seen = Vec::new();
    let mut pendings = 0;
    loop {
        match lines.poll_line().unwrap() {
            InputLine::Line(line) => seen.push(line),
            InputLine::Pending => {
                pendings += 1;
                lines.wait(Duration::from_millis(100)).unwrap();
            }
            InputLine::Eof => break,
        }
    }
    assert_eq!(seen, ["one", "two", "tail"]);
    assert!(pendings >= 1, "the pause in the writer must surface as Pending, not a blocked read");
    assert_eq!(lines.poll_line().unwrap(), InputLine::Eof);
    child.wait().unwrap();
}
