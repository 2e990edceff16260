//! `provider::completions`: an OpenAI-compatible chat-completions provider (streaming SSE over
//! [`super::http`]). Credentials come only from [`CompletionOptions::api_key`] or the request's
//! `options.apiKey` — never from the process environment — and `anonymous` sends none at all.

use super::http::{post_json, HttpUrl};
use super::{assistant_message, Provider, ProviderRequest};
use serde_json::{json, Map, Value};
use std::io::BufRead;
use std::time::Duration;

/// Where the provider lives.
#[derive(Debug, Clone)]
pub struct CompletionModel {
    /// The provider id pier registers (`--model <provider>/<model>`).
    pub provider: String,
    /// `http://host:port/v1` (the `/chat/completions` suffix is appended).
    pub base_url: String,
    /// The model used when a request names none.
    pub default_model: Option<String>,
}

/// Request options.
#[derive(Debug, Clone)]
pub struct CompletionOptions {
    pub api_key: Option<String>,
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub max_tokens: Option<u64>,
    pub temperature: Option<f64>,
}

impl Default for CompletionOptions {
    fn default() -> Self {
        CompletionOptions { api_key: None, headers: Vec::new(), timeout: Duration::from_secs(120), max_tokens: None, temperature: None }
    }
}

/// The provider [`completions`] returns.
pub struct Completions {
    model: CompletionModel,
    options: CompletionOptions,
    anonymous: bool,
}

/// An OpenAI-compatible provider for `model`; `anonymous` sends no `Authorization` header.
pub fn completions(model: CompletionModel, options: CompletionOptions, anonymous: bool) -> Completions {
    Completions { model, options, anonymous }
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// pi's context (`systemPrompt`, `messages`, `tools`) as OpenAI chat messages and tools.
pub fn to_openai(context: &Value) -> (Vec<Value>, Vec<Value>) {
    let mut messages = Vec::new();
    if let Some(system) = context.get("systemPrompt").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in context.get("messages").and_then(Value::as_array).into_iter().flatten() {
        match message.get("role").and_then(Value::as_str) {
            Some("user") => messages.push(json!({"role": "user", "content": text_of(&message["content"])})),
            Some("assistant") => {
                let blocks = message.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
                let text = text_of(&Value::Array(blocks.clone()));
                let calls: Vec<Value> = blocks
                    .iter()
                    .filter(|block| block.get("type").and_then(Value::as_str) == Some("toolCall"))
                    .map(|block| {
                        json!({"id": block["id"], "type": "function", "function": {
                            "name": block["name"], "arguments": block.get("arguments").cloned().unwrap_or(json!({})).to_string()}})
                    })
                    .collect();
                let mut out = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    out["tool_calls"] = Value::Array(calls);
                }
                messages.push(out);
            }
            Some("toolResult") => messages.push(json!({
                "role": "tool", "tool_call_id": message["toolCallId"], "content": text_of(&message["content"])})),
            _ => {}
        }
    }
    let tools = context
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|tool| json!({"type": "function", "function": {
            "name": tool["name"], "description": tool.get("description").cloned().unwrap_or(json!("")),
            "parameters": tool.get("parameters").cloned().unwrap_or(json!({"type": "object"}))}}))
        .collect();
    (messages, tools)
}

/// What the stream has said so far.
#[derive(Default)]
pub struct Accumulated {
    pub text: String,
    /// (id, name, arguments text) by tool-call index.
    pub tool_calls: Vec<(String, String, String)>,
    pub finish_reason: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Accumulated {
    /// Folds one chunk (a streaming `delta` or a whole non-streaming `message`) in.
    pub fn absorb(&mut self, chunk: &Value) {
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.input_tokens = usage.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(self.input_tokens);
            self.output_tokens = usage.get("completion_tokens").and_then(Value::as_u64).unwrap_or(self.output_tokens);
        }
        let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else { return };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_string());
        }
        let delta = choice.get("delta").or_else(|| choice.get("message"));
        let Some(delta) = delta else { return };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(text);
        }
        for (position, call) in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let index = call.get("index").and_then(Value::as_u64).map(|i| i as usize).unwrap_or(position);
            while self.tool_calls.len() <= index {
                self.tool_calls.push(Default::default());
            }
            let slot = &mut self.tool_calls[index];
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                slot.0 = id.to_string();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                slot.1.push_str(name);
            }
            if let Some(arguments) = call.pointer("/function/arguments").and_then(Value::as_str) {
                slot.2.push_str(arguments);
            }
        }
    }

    /// pi's content blocks and stop reason.
    pub fn finish(self) -> (Vec<Value>, &'static str, u64, u64) {
        let mut content = Vec::new();
        if !self.text.is_empty() {
            content.push(json!({"type": "text", "text": self.text}));
        }
        for (id, name, arguments) in &self.tool_calls {
            let args: Value = serde_json::from_str(arguments).unwrap_or(json!({}));
            content.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": args}));
        }
        let reason = match self.finish_reason.as_deref() {
            Some("length") => "length",
            Some("tool_calls") | Some("function_call") => "toolUse",
            _ if !self.tool_calls.is_empty() => "toolUse",
            _ => "stop",
        };
        (content, reason, self.input_tokens, self.output_tokens)
    }
}

/// Reads server-sent events: each `data:` payload is passed to `on_data` until `[DONE]` or the end.
pub fn read_sse(body: &mut dyn BufRead, mut on_data: impl FnMut(&str)) -> std::io::Result<()> {
    let mut data = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        let n = body.read_line(&mut line)?;
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if n == 0 || trimmed.is_empty() {
            if !data.is_empty() {
                if data == "[DONE]" {
                    return Ok(());
                }
                on_data(&data);
                data.clear();
            }
            if n == 0 {
                return Ok(());
            }
            continue;
        }
        if let Some(value) = trimmed.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
}

impl Completions {
    fn request_body(&self, request: &ProviderRequest) -> (String, Value) {
        let model = request
            .model
            .get("id")
            .and_then(Value::as_str)
            .or(request.model.as_str())
            .map(str::to_string)
            .or_else(|| self.model.default_model.clone())
            .unwrap_or_default();
        let (messages, tools) = to_openai(&request.context);
        let mut body = Map::new();
        body.insert("model".into(), json!(model));
        body.insert("messages".into(), Value::Array(messages));
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
        if !tools.is_empty() {
            body.insert("tools".into(), Value::Array(tools));
        }
        let max_tokens = request.options.get("maxTokens").and_then(Value::as_u64).or(self.options.max_tokens);
        if let Some(max) = max_tokens {
            body.insert("max_tokens".into(), json!(max));
        }
        let temperature = request.options.get("temperature").and_then(Value::as_f64).or(self.options.temperature);
        if let Some(t) = temperature {
            body.insert("temperature".into(), json!(t));
        }
        (model, Value::Object(body))
    }
}

impl Provider for Completions {
    fn id(&self) -> String {
        self.model.provider.clone()
    }

    fn base_url(&self) -> String {
        self.model.base_url.clone()
    }

    fn api_style(&self) -> String {
        "openai-completions".to_string()
    }

    fn complete(&self, request: &ProviderRequest) -> Result<Value, String> {
        let url = HttpUrl::parse(&self.model.base_url)?.join("/chat/completions");
        let (model, body) = self.request_body(request);
        let mut headers = self.options.headers.clone();
        if !self.anonymous {
            let key = request.options.get("apiKey").and_then(Value::as_str).map(str::to_string).or(self.options.api_key.clone());
            if let Some(key) = key.filter(|k| !k.is_empty()) {
                headers.push(("Authorization".to_string(), format!("Bearer {key}")));
            }
        }
        let mut response = post_json(&url, &headers, &body.to_string(), self.options.timeout)
            .map_err(|e| format!("{}: {e}", self.model.base_url))?;
        if response.status >= 400 {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut response.body, &mut text);
            return Err(format!("{} answered HTTP {}: {}", self.model.base_url, response.status, text.trim()));
        }
        let mut acc = Accumulated::default();
        let streaming = response.header("content-type").is_some_and(|t| t.contains("text/event-stream"));
        if streaming {
            read_sse(&mut response.body, |data| {
                if let Ok(chunk) = serde_json::from_str::<Value>(data) {
                    acc.absorb(&chunk);
                }
            })
            .map_err(|e| format!("{}: stream failed: {e}", self.model.base_url))?;
        } else {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut response.body, &mut text).map_err(|e| e.to_string())?;
            let whole: Value = serde_json::from_str(&text).map_err(|e| format!("{}: invalid JSON response: {e}", self.model.base_url))?;
            acc.absorb(&whole);
        }
        let (content, reason, input, output) = acc.finish();
        Ok(assistant_message(&self.model.provider, &model, "openai-completions", content, reason, input, output))
    }
}
