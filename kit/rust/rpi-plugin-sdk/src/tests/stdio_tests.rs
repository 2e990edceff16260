use crate::stdio::{InputLine, StdinLines};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn lines_then_an_unterminated_tail_then_eof() {
    // The writer holds its tail until the reader has seen both lines and found nothing more: the pause is the
    // test's own doing, not a sleep that a loaded machine could hide.
    let mut child = Command::new("sh")
        .args(["-c", "printf 'one\\r\\ntwo\\n'; read go; printf 'tail'"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut release = child.stdin.take();
    let stdout = child.stdout.take().unwrap();
    let mut lines = StdinLines::from_fd(stdout.as_raw_fd()).unwrap();
    let mut seen = Vec::new();
    let mut pendings_after_lines = 0;
    loop {
        match lines.poll_line().unwrap() {
            InputLine::Line(line) => seen.push(line),
            InputLine::Pending => {
                if seen.len() == 2 {
                    pendings_after_lines += 1;
                    if let Some(mut writer) = release.take() {
                        writer.write_all(b"go\n").unwrap();
                    }
                }
                lines.wait(Duration::from_millis(100)).unwrap();
            }
            InputLine::Eof => break,
        }
    }
    assert_eq!(seen, ["one", "two", "tail"]);
    assert!(pendings_after_lines >= 1, "the writer's pause must surface as Pending, not a blocked read");
    assert_eq!(lines.poll_line().unwrap(), InputLine::Eof);
    child.wait().unwrap();
}
