use crate::dialogs::{permission_options, validate, DialogPurpose, PermissionDecision};
use crate::json::{from_stable, json, object_or_empty, Value};
use crate::StbString;

fn permission(ui: Value) -> Value {
    json!({"op": "open", "requestId": "r1", "toolCallId": "call-1", "ui": ui})
}

fn good_ui() -> Value {
    json!({"purpose": "permission", "kind": "confirm", "question": "Allow?", "options": [
        {"title": "Allow once", "permission": "allow_once"},
        {"title": "Reject", "permission": "reject_once", "description": "no"}]})
}

fn refused(request: Value) -> String {
    validate(&request).expect_err("must be refused").0
}

#[test]
fn a_valid_permission_dialog_passes_and_keeps_titles() {
    assert_eq!(validate(&permission(good_ui())), Ok(DialogPurpose::Permission));
    let options = permission_options(&good_ui()).unwrap();
    assert_eq!(options[1].title, "Reject");
    assert_eq!(options[1].permission, PermissionDecision::RejectOnce);
    assert_eq!(options[1].description.as_deref(), Some("no"));
    assert!(options[0].permission.allows());
}

#[test]
fn questions_are_the_default_purpose() {
    let ui = json!({"kind": "selector", "options": [{"title": " padded "}]});
    assert_eq!(validate(&json!({"requestId": "q", "ui": ui})), Ok(DialogPurpose::Question));
    assert_eq!(validate(&json!({"requestId": "q", "ui": {"purpose": "question"}})), Ok(DialogPurpose::Question));
}

#[test]
fn each_permission_rule_has_its_refusal() {
    let mut no_call = permission(good_ui());
    no_call.as_object_mut().unwrap().remove("toolCallId");
    assert!(refused(no_call).contains("toolCallId"));
    let mut blank_call = permission(good_ui());
    blank_call["toolCallId"] = json!("");
    assert!(refused(blank_call).contains("toolCallId"));
    let mut ui = good_ui();
    ui["kind"] = json!("input");
    assert!(refused(permission(ui)).contains("kind"));
    let mut ui = good_ui();
    ui["allowMultiple"] = json!(true);
    assert!(refused(permission(ui)).contains("allowMultiple"));
    let mut ui = good_ui();
    ui["allowFreeform"] = json!(true);
    assert!(refused(permission(ui)).contains("allowFreeform"));
    let mut ui = good_ui();
    ui["questions"] = json!([]);
    assert!(refused(permission(ui)).contains("questions"));
    let mut ui = good_ui();
    ui["options"][0]["permission"] = json!("maybe");
    assert!(refused(permission(ui)).contains("options[0].permission"));
    let mut ui = good_ui();
    ui["options"][1]["title"] = json!("Allow once");
    assert!(refused(permission(ui)).contains("not unique"));
    let mut ui = good_ui();
    ui["options"][0]["title"] = json!(" Allow once");
    assert!(refused(permission(ui)).contains("whitespace"));
    let mut ui = good_ui();
    ui["options"][0]["title"] = json!("");
    assert!(refused(permission(ui)).contains("empty"));
    let mut ui = good_ui();
    ui["options"] = json!([]);
    assert!(refused(permission(ui)).contains("at least one"));
    let mut ui = good_ui();
    ui["purpose"] = json!("approval");
    assert!(refused(permission(ui)).contains("purpose"));
    assert!(refused(json!({"ui": good_ui()})).contains("requestId"));
    assert!(refused(json!({"op": "wave", "requestId": "r"})).contains("wave"));
}

#[test]
fn json_keeps_key_order_and_big_numbers() {
    let s = StbString::from_str(r#"{"z":1,"a":123456789012345678901234567890}"#);
    let value: Value = unsafe { from_stable(&s) }.unwrap();
    assert_eq!(value.to_string(), r#"{"z":1,"a":123456789012345678901234567890}"#);
    unsafe { crate::callbacks::free_string(s) };
    assert_eq!(object_or_empty(""), json!({}));
    assert_eq!(object_or_empty("[1]"), json!({}));
}
