use crate::provider::http::HttpUrl;
use crate::provider::{completions, drive, CompletionModel, CompletionOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

/// A one-shot OpenAI-compatible server answering with a chunked SSE stream; returns the request it saw.
fn serve_once(listener: TcpListener) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let events = [
            r#"{"choices":[{"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2}}"#,
        ];
        let mut sse = String::new();
        for e in events {
            sse.push_str(&format!("data: {e}\n\n"));
        }
        sse.push_str("data: [DONE]\n\n");
        let mut out = stream;
        write!(out, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
        for piece in sse.as_bytes().chunks(13) {
            write!(out, "{:x}\r\n", piece.len()).unwrap();
            out.write_all(piece).unwrap();
            out.write_all(b"\r\n").unwrap();
        }
        out.write_all(b"0\r\n\r\n").unwrap();
        format!("{head}{}", String::from_utf8(body).unwrap())
    })
}

#[test]
fn completions_streams_sse_into_one_assistant_message() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = serve_once(listener);
    let provider = completions(
        CompletionModel { provider: "local".into(), base_url: format!("http://127.0.0.1:{port}/v1"), default_model: None },
        CompletionOptions { api_key: Some("k1".into()), ..Default::default() },
        false,
    );
    let request = r#"{"model":{"id":"m1"},"context":{"systemPrompt":"sys","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]},"options":{}}"#;
    let text = drive(&provider, request).expect("completion");
    let message: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(message["content"][0]["text"], "Hello");
    assert_eq!(message["stopReason"], "stop");
    assert_eq!(message["provider"], "local");
    assert_eq!(message["model"], "m1");
    assert_eq!(message["usage"]["input"], 7);
    let seen = server.join().unwrap();
    assert!(seen.starts_with("POST /v1/chat/completions HTTP/1.1\r\n"), "{seen}");
    assert!(seen.contains("Authorization: Bearer k1"));
    assert!(seen.contains(r#""messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"}]"#), "{seen}");
}

#[test]
fn anonymous_sends_no_credentials_and_https_is_refused_with_the_reason() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = serve_once(listener);
    let provider = completions(
        CompletionModel { provider: "p".into(), base_url: format!("http://127.0.0.1:{port}"), default_model: Some("d".into()) },
        CompletionOptions { api_key: Some("secret".into()), ..Default::default() },
        true,
    );
    drive(&provider, r#"{"context":{"messages":[]}}"#).unwrap();
    let seen = server.join().unwrap();
    assert!(!seen.contains("secret") && !seen.contains("Authorization"), "{seen}");
    assert!(seen.contains(r#""model":"d""#));
    let err = HttpUrl::parse("https://api.example.com/v1").unwrap_err();
    assert!(err.contains("no TLS"), "{err}");
    assert_eq!(HttpUrl::parse("http://h:81/a/").unwrap(), HttpUrl { host: "h".into(), port: 81, path: "/a".into() });
}
