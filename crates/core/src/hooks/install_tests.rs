//! Install and uninstall round trips of each agent's hooks.

use super::*;
use std::fs;

fn project() -> (tempfile::TempDir, Paths) {
    let dir = tempfile::tempdir().expect("tempdir");
    let paths = Paths::new(dir.path());
    (dir, paths)
}

fn write(dir: &tempfile::TempDir, vendor: Vendor, place: Place, text: &str) -> PathBuf {
    let path = settings_path(dir.path(), vendor, place);
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(&path, text).expect("write");
    path
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("json")
}

#[test]
fn each_agent_gets_one_entry_point_for_every_event_and_installing_twice_changes_nothing() {
    for vendor in VENDORS {
        let (dir, paths) = project();
        let hooks = swarm_hooks("swarm", vendor);
        let c = install(&paths, vendor, Place::Shared, &hooks).expect("install");
        assert_eq!(c.changed.len(), hooks.len());
        let v = read(&settings_path(dir.path(), vendor, Place::Shared));
        for hook in &hooks {
            let group = &v["hooks"][hook.event][0];
            assert_eq!(
                group["hooks"][0]["command"],
                format!("swarm hook {vendor}"),
                "{vendor} {}",
                hook.event
            );
            assert_eq!(group["hooks"][0]["type"], "command");
        }
        assert_eq!(installed_events(&paths, vendor).len(), hooks.len());
        let again = install(&paths, vendor, Place::Shared, &hooks).expect("install");
        assert!(again.changed.is_empty());
        // Removing them leaves no file behind, as before.
        uninstall(&paths, vendor, Place::Shared, &hooks).expect("uninstall");
        assert!(!settings_path(dir.path(), vendor, Place::Shared).exists());
    }
}

#[test]
fn other_settings_keep_their_bytes_through_a_round_trip() {
    // As an editor or the agent itself writes them (two-space JSON).
    let claude = "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls:*)\"\n    ]\n  },\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"say done\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    let gemini = "{\n  \"security\": {\n    \"auth\": {\n      \"selectedType\": \"gemini-api-key\"\n    }\n  },\n  \"mcpServers\": {\n    \"swarm\": {\n      \"command\": \"swarm\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}";
    // Python's layout (what older swarm versions wrote).
    let python = "{\n  \"env\": {\n    \"NAME\": \"caf\\u00e9\"\n  }\n}\n";
    for (vendor, place, text) in [
        (Vendor::Claude, Place::Shared, claude),
        (Vendor::Gemini, Place::Shared, gemini),
        (Vendor::Claude, Place::Local, python),
        (Vendor::Codex, Place::Shared, "{\"description\": \"mine\"}"),
    ] {
        let (dir, paths) = project();
        let path = write(&dir, vendor, place, text);
        let hooks = swarm_hooks("/opt/swarm", vendor);
        install(&paths, vendor, place, &hooks).expect("install");
        let after = read(&path);
        let before: Value = serde_json::from_str(text).expect("json");
        for (key, value) in before.as_object().expect("object") {
            if key != "hooks" {
                assert_eq!(&after[key], value, "{vendor}: {key}");
            }
        }
        let c = uninstall(&paths, vendor, place, &hooks).expect("uninstall");
        assert_eq!(c.changed.len(), hooks.len());
        if vendor == Vendor::Codex {
            // One line in, two-space JSON out: the same settings.
            assert_eq!(read(&path), before);
        } else {
            assert_eq!(fs::read_to_string(&path).expect("read"), text, "{vendor}");
        }
    }
}

#[test]
fn the_former_separate_claude_hooks_give_way_to_the_one_entry_point() {
    let old = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo mine"}, {"type": "command", "command": "swarm inbox --new --hook"}]}], "PreToolUse": [{"matcher": "Edit|Write|MultiEdit", "hooks": [{"type": "command", "command": "/old/swarm guard check-edit"}]}]}}"#;
    let (dir, paths) = project();
    let path = write(&dir, Vendor::Claude, Place::Shared, old);
    let hooks = swarm_hooks("swarm", Vendor::Claude);
    install(&paths, Vendor::Claude, Place::Shared, &hooks).expect("install");
    let text = fs::read_to_string(&path).expect("read");
    assert!(
        !text.contains("inbox --new --hook") && !text.contains("check-edit"),
        "{text}"
    );
    assert!(text.contains("echo mine"));
    assert_eq!(installed_swarms(&paths, Vendor::Claude), ["swarm"]);
}

#[test]
fn refuses_to_touch_a_broken_file() {
    let (dir, paths) = project();
    let path = write(&dir, Vendor::Gemini, Place::Shared, "{ not json");
    let err = install(
        &paths,
        Vendor::Gemini,
        Place::Shared,
        &swarm_hooks("swarm", Vendor::Gemini),
    )
    .expect_err("broken");
    assert!(err.to_string().contains("will not overwrite"), "{err}");
    assert_eq!(fs::read_to_string(path).expect("read"), "{ not json");
}
