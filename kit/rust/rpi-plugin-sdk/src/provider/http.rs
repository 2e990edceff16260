//! A minimal HTTP/1.1 client on `std::net::TcpStream`: one POST per connection (`Connection: close`),
//! chunked or length-delimited bodies. Plain `http://` only — std has no TLS (see the crate docs).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A parsed `http://host[:port][/path]` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    pub host: String,
    pub port: u16,
    /// Starts with `/`, no trailing slash unless it is the root.
    pub path: String,
}

impl HttpUrl {
    pub fn parse(url: &str) -> Result<HttpUrl, String> {
        if url.starts_with("https://") {
            return Err(format!(
                "{url}: https is not available — pier's rpi-plugin-sdk has no TLS offline (std only); use an http:// endpoint such as a local proxy"
            ));
        }
        let Some(rest) = url.strip_prefix("http://") else {
            return Err(format!("{url}: the base URL must start with http://"));
        };
        let (authority, path) = match rest.find('/') {
            Some(index) => (&rest[..index], &rest[index..]),
            None => (rest, "/"),
        };
        if authority.is_empty() {
            return Err(format!("{url}: no host"));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
                let port = port.parse::<u16>().map_err(|_| format!("{url}: bad port {port:?}"))?;
                (host.to_string(), port)
            }
            _ => (authority.to_string(), 80),
        };
        let path = if path.len() > 1 { path.trim_end_matches('/').to_string() } else { path.to_string() };
        Ok(HttpUrl { host, port, path })
    }

    /// This URL with `suffix` appended to its path.
    pub fn join(&self, suffix: &str) -> HttpUrl {
        let base = if self.path == "/" { "" } else { self.path.as_str() };
        HttpUrl { host: self.host.clone(), port: self.port, path: format!("{base}{suffix}") }
    }
}

/// A response: status, lower-cased headers, and a reader over the decoded body.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Box<dyn BufRead + Send>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// Sends `POST url` with a JSON body and returns the response once its headers have arrived.
pub fn post_json(url: &HttpUrl, headers: &[(String, String)], body: &str, timeout: Duration) -> io::Result<Response> {
    let mut stream = TcpStream::connect((url.host.as_str(), url.port))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let mut request = format!(
        "POST {} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/json\r\nAccept: text/event-stream, application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        url.path,
        url.host,
        url.port,
        body.len()
    );
    for (name, value) in headers {
        if name.contains(['\r', '\n']) || value.contains(['\r', '\n']) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("header {name:?} holds a line break")));
        }
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()?;

    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("bad HTTP status line {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let find = |name: &str| headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    let body: Box<dyn BufRead + Send> = if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        Box::new(BufReader::new(Chunked { inner: reader, remaining: 0, done: false }))
    } else if let Some(length) = find("content-length").and_then(|v| v.parse::<u64>().ok()) {
        Box::new(BufReader::new(reader.take(length)))
    } else {
        Box::new(reader)
    };
    Ok(Response { status, headers, body })
}

/// Decodes `Transfer-Encoding: chunked`.
struct Chunked<R: BufRead> {
    inner: R,
    remaining: u64,
    done: bool,
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if self.remaining == 0 {
            let mut size_line = String::new();
            self.inner.read_line(&mut size_line)?;
            let size_text = size_line.trim().split(';').next().unwrap_or("");
            let size = u64::from_str_radix(size_text, 16)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, format!("bad chunk size {size_line:?}")))?;
            if size == 0 {
                self.done = true;
                return Ok(0);
            }
            self.remaining = size;
        }
        let want = buf.len().min(self.remaining as usize);
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed inside a chunk"));
        }
        self.remaining -= n as u64;
        if self.remaining == 0 {
            let mut crlf = String::new();
            self.inner.read_line(&mut crlf)?;
        }
        Ok(n)
    }
}
