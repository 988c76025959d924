//! The server must answer or ignore anything a client (or a broken client) sends, never crash: malformed JSON,
//! unknown methods, unknown documents, bad parameters, odd text, requests at the wrong time.

mod support;

use std::io::{BufRead, BufReader, Write};

use lsp_server::ErrorCode;
use serde_json::{json, Value};
use skc_lsp::ServerError;
use support::{uri, Client};

fn error_code(response: &lsp_server::Response) -> Option<i32> {
    response.error.as_ref().map(|e| e.code)
}

#[test]
fn unknown_methods_are_answered_and_unknown_notifications_ignored() {
    let mut client = Client::start();
    let response = client.request("textDocument/frobnicate", json!({}));
    assert_eq!(error_code(&response), Some(ErrorCode::MethodNotFound as i32));
    client.notify("skc/somethingNew", json!({ "x": 1 }));
    client.notify("$/progress", json!(null));
    let response = client.request("textDocument/documentSymbol", json!({ "textDocument": { "uri": uri("none.sk") } }));
    assert_eq!((response.result, response.error.is_none()), (Some(Value::Null), true));
    client.shutdown().unwrap();
}

#[test]
fn requests_for_unknown_documents_return_null() {
    let mut client = Client::start();
    for method in ["textDocument/hover", "textDocument/definition"] {
        let params = json!({ "textDocument": { "uri": uri("missing.sk") }, "position": { "line": 0, "character": 0 } });
        let response = client.request(method, params);
        assert!(response.error.is_none(), "{method}: {response:?}");
        assert_eq!(response.result, Some(Value::Null), "{method}");
    }
    // A change to a document that was never opened is ignored.
    client.change("missing.sk", 2, "kernel k () = ()");
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri("never.sk") } }));
    let published = client.next_diagnostics();
    assert_eq!((published.uri, published.diagnostics.len()), (uri("never.sk"), 0));
    client.shutdown().unwrap();
}

#[test]
fn invalid_parameters_are_an_error_response() {
    let mut client = Client::start();
    let response = client.request("textDocument/hover", json!({ "position": "nowhere" }));
    assert_eq!(error_code(&response), Some(ErrorCode::InvalidParams as i32));
    let response = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri("a.sk") }, "position": { "line": -1, "character": 0 } }),
    );
    assert_eq!(error_code(&response), Some(ErrorCode::InvalidParams as i32));
    client.notify("textDocument/didOpen", json!({ "textDocument": 42 }));
    client.shutdown().unwrap();
}

#[test]
fn requests_before_initialize_and_after_shutdown_are_refused() {
    let mut client = Client::spawn();
    let response = client.request("textDocument/hover", json!({}));
    assert_eq!(error_code(&response), Some(ErrorCode::ServerNotInitialized as i32));
    client.request("initialize", json!({ "capabilities": {} }));
    let again = client.request("initialize", json!({ "capabilities": {} }));
    assert_eq!(error_code(&again), Some(ErrorCode::InvalidRequest as i32));
    client.request("shutdown", Value::Null);
    let late = client.request("textDocument/hover", json!({}));
    assert_eq!(error_code(&late), Some(ErrorCode::InvalidRequest as i32));
    client.notify("exit", Value::Null);
    assert!(client.join().is_ok());
}

#[test]
fn exit_without_shutdown_is_an_error() {
    let client = Client::start();
    client.notify("exit", Value::Null);
    assert!(matches!(client.join(), Err(ServerError::ExitWithoutShutdown)));
}

#[test]
fn odd_text_and_every_position_in_it() {
    let text = "(* unterminated (* nested *)\n\u{0}\u{feff}kernel 𝄞 (x : \"str\n\t\r\n let let let in in 0x_ 1e 9999999999999999999999l\n((((((((((((((((((((((((((((((\n]|}|)*) [%kernel fun -> ] [@@ ;; é";
    let mut client = Client::start();
    client.open("odd.sk", text);
    let lines = text.split('\n').count() + 2;
    for line in 0..lines {
        for character in (0..90).step_by(3) {
            let position = json!({ "line": line, "character": character });
            for method in ["textDocument/hover", "textDocument/definition"] {
                let params = json!({ "textDocument": { "uri": uri("odd.sk") }, "position": position });
                let response = client.request(method, params);
                assert!(response.error.is_none(), "{method} at {position}: {response:?}");
            }
        }
    }
    let deep = format!("kernel k (out : int32 vector) = out.(0) <- {}1{}", "(".repeat(5000), ")".repeat(5000));
    client.change("odd.sk", 2, &deep);
    let published = client.next_diagnostics();
    assert_eq!(published.version, Some(2));
    client.shutdown().unwrap();
}

/// Frames `value` as the protocol does.
fn frame(value: &Value) -> Vec<u8> {
    let body = value.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn read_message(reader: &mut impl BufRead) -> Value {
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

/// A server on the byte-level transport, over pipes: (bytes to it, what it writes, its thread).
fn piped_server(
) -> (std::io::PipeWriter, BufReader<std::io::PipeReader>, std::thread::JoinHandle<Result<(), ServerError>>) {
    let (server_in, to_server) = std::io::pipe().unwrap();
    let (from_server, server_out) = std::io::pipe().unwrap();
    let server = std::thread::spawn(move || {
        let (connection, threads) = skc_lsp::transport::framed(BufReader::new(server_in), server_out);
        let result = skc_lsp::run(connection);
        threads.join().unwrap();
        result
    });
    (to_server, BufReader::new(from_server), server)
}

#[test]
fn garbage_on_the_wire_is_answered_and_skipped() {
    let (mut to_server, mut from_server, server) = piped_server();
    let mut send = |bytes: &[u8]| to_server.write_all(bytes).unwrap();
    send(b"Content-Length: 12\r\n\r\n{not json!!}");
    assert_eq!(read_message(&mut from_server)["error"]["code"], -32700);
    send(b"Content-Length: 4\r\n\r\n\xff\xfe\x00\x01");
    assert_eq!(read_message(&mut from_server)["error"]["code"], -32700);
    send(&frame(&json!({ "jsonrpc": "2.0", "id": 5, "params": {} })));
    assert_eq!(read_message(&mut from_server)["error"]["code"], -32600);
    send(b"this is not a header\r\nContent-Type: x\r\n\r\n");
    send(b"Content-Length: nine\r\n\r\n");
    send(&frame(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } })));
    let reply = read_message(&mut from_server);
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["capabilities"]["hoverProvider"], true);
    send(&frame(&json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" })));
    assert_eq!(read_message(&mut from_server)["id"], 2);
    send(&frame(&json!({ "jsonrpc": "2.0", "method": "exit" })));
    assert!(server.join().unwrap().is_ok());
}

/// A hover request frame with id `id` whose header says `length`.
fn hover_with_length(id: &str, length: &str) -> Vec<u8> {
    let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{}}}}"#);
    format!("Content-Length: {length}\r\n\r\n{body}").into_bytes()
}

#[test]
fn after_a_bad_content_length_every_later_request_is_answered() {
    for bad_length in ["abc", "99999999999999999999999999", "4000000000", "-5", ""] {
        let (mut to_server, mut from_server, server) = piped_server();
        let mut send = |bytes: &[u8]| to_server.write_all(bytes).unwrap();
        send(&frame(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } })));
        assert_eq!(read_message(&mut from_server)["id"], 1);
        // One frame with a bad length: its body cannot be delimited and is dropped...
        send(&hover_with_length("1000", bad_length));
        // ...and each of the 120 after it is read and answered (hover on an unknown document: null).
        for id in 2..122 {
            send(&frame(&json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {
                "textDocument": { "uri": "file:///nowhere.sk" }, "position": { "line": 0, "character": 0 } } })));
            let reply = read_message(&mut from_server);
            assert_eq!(
                (reply["id"].clone(), reply["result"].clone()),
                (json!(id), Value::Null),
                "after `{bad_length}`"
            );
        }
        send(&frame(&json!({ "jsonrpc": "2.0", "id": 200, "method": "shutdown" })));
        assert_eq!(read_message(&mut from_server)["id"], 200);
        send(&frame(&json!({ "jsonrpc": "2.0", "method": "exit" })));
        assert!(server.join().unwrap().is_ok(), "after `{bad_length}`");
    }
}

#[test]
fn every_request_is_answered_even_with_an_id_the_protocol_does_not_allow() {
    let (mut to_server, mut from_server, server) = piped_server();
    let mut send = |bytes: &[u8]| to_server.write_all(bytes).unwrap();
    send(&frame(&json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } })));
    assert_eq!(read_message(&mut from_server)["id"], 1);
    for (id, echoed) in [
        ("4294967296", json!(4294967296u64)),
        ("-9007199254740993", json!(-9007199254740993i64)),
        ("2.5", json!(2.5)),
        ("null", Value::Null),
        ("{}", Value::Null),
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{}}}}"#);
        send(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
        let reply = read_message(&mut from_server);
        assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (echoed, json!(-32600)), "id {id}");
    }
    // The largest and smallest 32-bit ids and string ids reach the server (which finds the parameters invalid).
    for id in [json!(2147483647), json!(-2147483648), json!("req-1")] {
        send(&frame(&json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {} })));
        let reply = read_message(&mut from_server);
        assert_eq!((reply["id"].clone(), reply["error"]["code"].clone()), (id, json!(-32602)));
    }
    send(&frame(&json!({ "jsonrpc": "2.0", "id": 3, "method": "shutdown" })));
    assert_eq!(read_message(&mut from_server)["id"], 3);
    send(&frame(&json!({ "jsonrpc": "2.0", "method": "exit" })));
    assert!(server.join().unwrap().is_ok());
}
