//! HTTP detector backends: OpenAI-compatible chat completions (OpenAI,
//! Ollama, llama.cpp server, vLLM, LM Studio) and the Anthropic Messages API.
//!
//! Requests carry no tools, temperature 0 and a small `max_tokens`; the
//! OpenAI-compatible body asks for a JSON schema that only admits the verdict
//! object. Retries happen only on connection errors, 429 and 5xx, bounded,
//! with exponential backoff. The API key is read from the named environment
//! variable, sent only in the auth header, and redacted from `Debug`.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{
    combine_slices, failed_outcome, fresh_boundary, system_prompt, user_message, validate_reply,
    Detector, DetectorOutcome, DetectorRequest, VoteFuture,
};
use crate::config::{DetectorConfig, DetectorKind};
use crate::policy::Policy;
use crate::report::{TokenUsage, Vote};

/// An API key that never prints.
#[derive(Clone)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

#[derive(Debug)]
pub struct HttpDetector {
    pub config: DetectorConfig,
    key: Result<Option<ApiKey>, String>,
    client: reqwest::Client,
}

/// One call's result: the reply text or why it failed, with usage.
struct CallResult {
    reply: Result<String, String>,
    usage: TokenUsage,
    attempts: u32,
}

impl HttpDetector {
    pub fn new(config: DetectorConfig) -> HttpDetector {
        let key = match &config.api_key_env {
            None => Ok(None),
            Some(var) => match std::env::var(var) {
                Ok(v) if !v.is_empty() => Ok(Some(ApiKey(v))),
                _ => Err(format!(
                    "environment variable {var} (api-key-env of detector `{}`) is not set",
                    config.id
                )),
            },
        };
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(config.timeout_secs))
            .connect_timeout(Duration::from_secs(config.timeout_secs.min(10)))
            // A redirect could carry the request (and the key) elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        HttpDetector {
            config,
            key,
            client,
        }
    }

    fn endpoint(&self) -> String {
        let base = self.config.base_url.trim_end_matches('/');
        match self.config.kind {
            DetectorKind::Openai => format!("{base}/chat/completions"),
            DetectorKind::Anthropic => format!("{base}/messages"),
        }
    }

    fn body(&self, system: &str, user: &str, allowed: &[String]) -> Value {
        match self.config.kind {
            DetectorKind::Openai => json!({
                "model": self.config.model,
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": user},
                ],
                "temperature": 0,
                "max_tokens": self.config.max_tokens,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": "verdict",
                        "strict": true,
                        "schema": {
                            "type": "object",
                            "properties": {"verdict": {"type": "string", "enum": allowed}},
                            "required": ["verdict"],
                            "additionalProperties": false,
                        },
                    },
                },
            }),
            DetectorKind::Anthropic => json!({
                "model": self.config.model,
                "system": system,
                "messages": [{"role": "user", "content": user}],
                "temperature": 0,
                "max_tokens": self.config.max_tokens,
            }),
        }
    }

    /// Extracts the reply text and usage from a 200 response body.
    fn parse(&self, body: &str) -> (Result<String, String>, TokenUsage) {
        let v: Value = match serde_json::from_str(body) {
            Ok(v) => v,
            Err(e) => {
                return (
                    Err(format!("response body is not JSON: {e}")),
                    TokenUsage::default(),
                )
            }
        };
        let u = |a: &str, b: &str| TokenUsage {
            input_tokens: v["usage"][a].as_u64().unwrap_or(0),
            output_tokens: v["usage"][b].as_u64().unwrap_or(0),
        };
        match self.config.kind {
            DetectorKind::Openai => {
                let usage = u("prompt_tokens", "completion_tokens");
                let choice = &v["choices"][0];
                if choice.is_null() {
                    return (Err("response has no choices".into()), usage);
                }
                if let Some(r) = choice["message"]["refusal"].as_str() {
                    return (Err(format!("model refused: {}", preview(r))), usage);
                }
                match choice["finish_reason"].as_str() {
                    Some("length") => {
                        return (Err("reply truncated (finish_reason length)".into()), usage)
                    }
                    Some("content_filter") => {
                        return (Err("reply blocked by content filter".into()), usage)
                    }
                    _ => {}
                }
                match choice["message"]["content"].as_str() {
                    Some(t) => (Ok(t.to_string()), usage),
                    None => (Err("response has no message content".into()), usage),
                }
            }
            DetectorKind::Anthropic => {
                let usage = u("input_tokens", "output_tokens");
                match v["stop_reason"].as_str() {
                    Some("max_tokens") => {
                        return (
                            Err("reply truncated (stop_reason max_tokens)".into()),
                            usage,
                        )
                    }
                    Some("refusal") => {
                        return (Err("model refused (stop_reason refusal)".into()), usage)
                    }
                    _ => {}
                }
                let Some(blocks) = v["content"].as_array() else {
                    return (Err("response has no content".into()), usage);
                };
                let mut text = String::new();
                for b in blocks {
                    match (b["type"].as_str(), b["text"].as_str()) {
                        (Some("text"), Some(t)) => text.push_str(t),
                        (ty, _) => {
                            return (
                                Err(format!("unexpected content block {:?}", ty.unwrap_or("?"))),
                                usage,
                            )
                        }
                    }
                }
                (Ok(text), usage)
            }
        }
    }

    async fn call(&self, system: &str, user: &str, allowed: &[String]) -> CallResult {
        let body = self.body(system, user, allowed);
        let key = match &self.key {
            Ok(k) => k.clone(),
            Err(e) => {
                return CallResult {
                    reply: Err(e.clone()),
                    usage: TokenUsage::default(),
                    attempts: 0,
                }
            }
        };
        let mut attempts = 0;
        loop {
            attempts += 1;
            let mut req = self.client.post(self.endpoint()).json(&body);
            if let Some(ApiKey(k)) = &key {
                req = match self.config.kind {
                    DetectorKind::Openai => req.bearer_auth(k),
                    DetectorKind::Anthropic => req.header("x-api-key", k),
                };
            }
            if self.config.kind == DetectorKind::Anthropic {
                req = req.header("anthropic-version", "2023-06-01");
            }
            let retryable;
            let outcome = match req.send().await {
                Err(e) => {
                    retryable = e.is_connect();
                    Err(if e.is_timeout() {
                        format!("timed out after {}s", self.config.timeout_secs)
                    } else if e.is_connect() {
                        "connection failed".to_string()
                    } else {
                        format!("request failed: {}", e.without_url())
                    })
                }
                Ok(resp) => {
                    let status = resp.status();
                    match resp.text().await {
                        Err(e) => {
                            retryable = false;
                            Err(if e.is_timeout() {
                                format!(
                                    "timed out after {}s reading the body",
                                    self.config.timeout_secs
                                )
                            } else {
                                format!("reading the body failed: {}", e.without_url())
                            })
                        }
                        Ok(text) if status.is_success() => {
                            let (reply, usage) = self.parse(&text);
                            return CallResult {
                                reply,
                                usage,
                                attempts,
                            };
                        }
                        Ok(text) => {
                            retryable = status.as_u16() == 429 || status.is_server_error();
                            Err(format!("HTTP {}: {}", status.as_u16(), preview(&text)))
                        }
                    }
                }
            };
            if !(retryable && attempts <= self.config.retries) {
                return CallResult {
                    reply: outcome,
                    usage: TokenUsage::default(),
                    attempts,
                };
            }
            tokio::time::sleep(Duration::from_millis(200u64 << (attempts - 1).min(5))).await;
        }
    }

    /// Judges one slice: one call, validated.
    async fn judge(
        &self,
        system: &str,
        policy: &Policy,
        slice: &str,
    ) -> (Result<Vote, String>, TokenUsage, u32) {
        let boundary = fresh_boundary(slice);
        let user = user_message(policy, slice, &boundary);
        let r = self.call(system, &user, &policy.protocol.allowed).await;
        let v = r
            .reply
            .and_then(|reply| validate_reply(&reply, &policy.protocol.allowed));
        (v, r.usage, r.attempts)
    }

    async fn vote_async(&self, request: &DetectorRequest) -> DetectorOutcome {
        use futures_util::stream::{self, StreamExt};
        let started = Instant::now();
        let policy = &request.policy;
        let system = system_prompt(policy);
        let spans = request.calls(self.config.max_input_bytes);
        let mut votes = Vec::with_capacity(spans.len());
        let mut usage = TokenUsage::default();
        let mut calls = 0;
        // Up to `parallel-calls` slices in flight, results taken in order;
        // leaving the loop drops the calls still in flight.
        let mut judged = stream::iter(spans)
            .map(|parts| {
                let system = &system;
                async move {
                    let slice = request.call_text(&parts);
                    self.judge(system, policy, &slice).await
                }
            })
            .buffered(self.config.parallel_calls.max(1));
        while let Some((v, used, attempts)) = judged.next().await {
            calls += attempts;
            usage += used;
            let harmful = matches!(v, Ok(Vote::Harmful));
            votes.push(v);
            if harmful {
                break; // one harmful slice decides this detector's vote
            }
        }
        match combine_slices(&votes) {
            Ok(vote) => DetectorOutcome {
                vote,
                error: None,
                latency_ms: started.elapsed().as_millis() as u64,
                calls,
                usage,
            },
            Err(e) => failed_outcome(e, started, calls, usage),
        }
    }
}

fn preview(s: &str) -> String {
    let p: String = s.chars().take(120).collect();
    format!("{p:?}")
}

impl Detector for HttpDetector {
    fn id(&self) -> &str {
        &self.config.id
    }
    fn model(&self) -> &str {
        &self.config.model
    }
    fn is_local(&self) -> bool {
        crate::util::is_loopback_url(&self.config.base_url)
    }
    fn vote<'a>(&'a self, request: &'a DetectorRequest) -> VoteFuture<'a> {
        Box::pin(self.vote_async(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_key() {
        std::env::set_var("CANARY_TEST_SECRET_KEY", "sk-very-secret-123");
        let d = HttpDetector::new(DetectorConfig {
            id: "x".into(),
            kind: DetectorKind::Openai,
            base_url: "http://127.0.0.1:9".into(),
            model: "m".into(),
            api_key_env: Some("CANARY_TEST_SECRET_KEY".into()),
            timeout_secs: 1,
            max_tokens: 16,
            max_input_bytes: 4096,
            retries: 0,
            parallel_calls: 1,
            price: None,
        });
        let dbg = format!("{d:?}");
        assert!(!dbg.contains("sk-very-secret"), "{dbg}");
        assert!(dbg.contains("redacted"));
    }
}
