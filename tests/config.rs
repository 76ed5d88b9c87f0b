//! `swarm config`: the file round-trips in both formats, every bad key,
//! type or value is reported precisely, and environment overrides work.

use crate::harness::{Project, redacted, stderr, stdout, stdout_json, swarm_outside_tmux};

#[test]
fn init_validate_show_round_trips_in_both_formats() {
    for (name, flag) in [
        (".claudeswarm.toml", None),
        (".claudeswarm.yaml", Some(".claudeswarm.yaml")),
    ] {
        let project = Project::new();
        let mut init = swarm_outside_tmux(&project);
        init.args(["config", "init"]);
        if let Some(f) = flag {
            init.args(["-o", f]);
        }
        init.assert().success();
        let text = project.read(name);
        assert!(text.starts_with("# swarm configuration"), "{text}");
        if name.ends_with(".yaml") {
            assert!(
                text.contains("rate_limiting:\n"),
                "YAML asked for, YAML written"
            );
        } else {
            assert!(text.contains("[rate_limiting]\n"), "TOML by default");
        }
        let out = swarm_outside_tmux(&project)
            .args(["config", "validate"])
            .output()
            .expect("run");
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(stdout(&out).contains(&format!("Validating {}", project.file(name).display())));
        let out = swarm_outside_tmux(&project)
            .args(["config", "show", "--json"])
            .output()
            .expect("run");
        let json = stdout_json(&out);
        assert_eq!(json["rate_limiting"]["messages_per_minute"], 10);
        assert_eq!(json["acks"]["retry_delays"], serde_json::json!([60, 120]));
        assert_eq!(
            json["messaging"]["delivery_pause_ms"],
            serde_json::Value::Null
        );
        // The file sets nothing until a key is uncommented.
        assert_eq!(
            json["_sources"]["locking.stale_timeout"],
            serde_json::json!({"from": "default"})
        );
        assert_eq!(
            json["_sources"]["discovery.auto_refresh_interval"],
            serde_json::json!({"from": "default"})
        );
        // Refuses to overwrite, then does with --force.
        let mut again = swarm_outside_tmux(&project);
        again.args(["config", "init"]);
        if let Some(f) = flag {
            again.args(["-o", f]);
        }
        let out = again.output().expect("run");
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
        assert!(stderr(&out).contains("--force"));
        project.write(name, "");
        let mut force = swarm_outside_tmux(&project);
        force.args(["config", "init", "--force"]);
        if let Some(f) = flag {
            force.args(["-o", f]);
        }
        force.assert().success();
        assert_eq!(project.read(name), text);
    }
}

#[test]
fn show_tells_where_each_value_came_from() {
    let project = Project::new();
    project.write(
        ".claudeswarm.toml",
        "[rate_limiting]\nwindow_seconds = 30\n\n[locking]\ndefault_reason = \"busy \\u001b[31m\"\n",
    );
    let out = swarm_outside_tmux(&project)
        .args(["config", "show"])
        .env("SWARM_ACKS_RETRY_DELAYS", "10,20,40")
        .env("SWARM_MESSAGING_CONFIRM_DELIVERY", "yes")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.contains('\x1b'),
        "a config value reached the terminal raw"
    );
    for python_repr in ["True", "False", "None", "['"] {
        assert!(!text.contains(python_repr), "{python_repr} in {text}");
    }
    redacted(|| insta::assert_snapshot!("config_show", text));
}

#[test]
fn show_and_validate_take_a_file() {
    let project = Project::new();
    project.write("other.yml", "dashboard:\n  port: 9000\n");
    let out = swarm_outside_tmux(&project)
        .args(["config", "show", "--json", "--file", "other.yml"])
        .output()
        .expect("run");
    assert_eq!(stdout_json(&out)["dashboard"]["port"], 9000);
    let out = swarm_outside_tmux(&project)
        .args(["config", "validate", "--file", "missing.toml"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("missing.toml does not exist"),
        "{}",
        stderr(&out)
    );
    // Nothing to validate: said plainly, exit 1 (as the original).
    let out = swarm_outside_tmux(&project)
        .args(["config", "validate"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no config file found"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("swarm config init"));
}

/// One bad file and what the error must say: its line, key and reason.
struct Case {
    file: &'static str,
    text: &'static str,
    line: usize,
    key: &'static str,
    says: &'static str,
}

const CASES: &[Case] = &[
    // Unknown sections and keys, with a suggestion for typos.
    Case {
        file: "c.toml",
        text: "[rate_limit]\nmessages_per_minute = 5\n",
        line: 1,
        key: "rate_limit",
        says: "unknown section (did you mean `rate_limiting`?)",
    },
    Case {
        file: "c.yaml",
        text: "rate_limit:\n  messages_per_minute: 5\n",
        line: 1,
        key: "rate_limit",
        says: "unknown section (did you mean `rate_limiting`?)",
    },
    Case {
        file: "c.toml",
        text: "[rate_limiting]\nwindow_seconds = 60\nburst = 2\n",
        line: 3,
        key: "rate_limiting.burst",
        says: "unknown key",
    },
    Case {
        file: "c.yaml",
        text: "locking:\n  stale_timeout: 60\n  stale_timout: 60\n",
        line: 3,
        key: "locking.stale_timout",
        says: "did you mean `stale_timeout`",
    },
    Case {
        file: "c.toml",
        text: "[discovery]\nstale = 1\n",
        line: 2,
        key: "discovery.stale",
        says: "unknown key",
    },
    Case {
        file: "c.yaml",
        text: "onboarding:\n  enable: true\n",
        line: 2,
        key: "onboarding.enable",
        says: "did you mean `enabled`",
    },
    Case {
        file: "c.toml",
        text: "[dashboard]\nbind = \"x\"\n",
        line: 2,
        key: "dashboard.bind",
        says: "unknown key",
    },
    Case {
        file: "c.yaml",
        text: "messaging:\n  pause_ms: 5\n",
        line: 2,
        key: "messaging.pause_ms",
        says: "unknown key",
    },
    Case {
        file: "c.toml",
        text: "[acks]\ntimeout = 5\n",
        line: 2,
        key: "acks.timeout",
        says: "unknown key",
    },
    // Wrong types.
    Case {
        file: "c.toml",
        text: "[rate_limiting]\nmessages_per_minute = \"ten\"\n",
        line: 2,
        key: "rate_limiting.messages_per_minute",
        says: "expected a whole number from 1 to 1000, got string \"ten\"",
    },
    Case {
        file: "c.yaml",
        text: "rate_limiting:\n  window_seconds: 5.5\n",
        line: 2,
        key: "rate_limiting.window_seconds",
        says: "got number 5.5",
    },
    Case {
        file: "c.yaml",
        text: "locking:\n  auto_cleanup: yes\n",
        line: 2,
        key: "locking.auto_cleanup",
        says: "expected true or false, got string \"yes\"",
    },
    Case {
        file: "c.toml",
        text: "[locking]\ndefault_reason = 5\n",
        line: 2,
        key: "locking.default_reason",
        says: "expected text, got integer 5",
    },
    Case {
        file: "c.toml",
        text: "rate_limiting = 5\n",
        line: 1,
        key: "rate_limiting",
        says: "must be a section",
    },
    Case {
        file: "c.yaml",
        text: "discovery:\n  agent_commands: claude\n",
        line: 2,
        key: "discovery.agent_commands",
        says: "expected a list of program names, got string",
    },
    Case {
        file: "c.toml",
        text: "[onboarding]\ncustom_messages = [1]\n",
        line: 2,
        key: "onboarding.custom_messages[0]",
        says: "expected text, got integer 1",
    },
    Case {
        file: "c.yaml",
        text: "dashboard:\n  host: [a]\n",
        line: 2,
        key: "dashboard.host",
        says: "expected text, got a list",
    },
    Case {
        file: "c.toml",
        text: "[messaging]\nconfirm_delivery = 1\n",
        line: 2,
        key: "messaging.confirm_delivery",
        says: "expected true or false",
    },
    Case {
        file: "c.yaml",
        text: "acks:\n  retry_delays: [60, \"x\"]\n",
        line: 2,
        key: "acks.retry_delays[1]",
        says: "got string \"x\"",
    },
    Case {
        file: "c.toml",
        text: "[locking]\ndefault_reason = 1979-05-27\n",
        line: 2,
        key: "locking.default_reason",
        says: "dates and times are not valid",
    },
    // Out of range.
    Case {
        file: "c.toml",
        text: "[rate_limiting]\nmessages_per_minute = 0\n",
        line: 2,
        key: "rate_limiting.messages_per_minute",
        says: "must be between 1 and 1000, got 0",
    },
    Case {
        file: "c.yaml",
        text: "rate_limiting:\n  window_seconds: 3601\n",
        line: 2,
        key: "rate_limiting.window_seconds",
        says: "must be between 1 and 3600, got 3601",
    },
    Case {
        file: "c.toml",
        text: "[locking]\nstale_timeout = 59\n",
        line: 2,
        key: "locking.stale_timeout",
        says: "must be between 60 and 86400, got 59",
    },
    Case {
        file: "c.yaml",
        text: "locking:\n  default_reason: \"  \"\n",
        line: 2,
        key: "locking.default_reason",
        says: "cannot be empty",
    },
    Case {
        file: "c.toml",
        text: "[discovery]\nstale_threshold = -5\n",
        line: 2,
        key: "discovery.stale_threshold",
        says: "must be between 10 and 3600, got -5",
    },
    Case {
        file: "c.yaml",
        text: "discovery:\n  auto_refresh_interval: 4\n",
        line: 2,
        key: "discovery.auto_refresh_interval",
        says: "must be between 5 and 86400, got 4",
    },
    Case {
        file: "c.toml",
        text: "[discovery]\nagent_commands = [\"claude\", \"/bin/sh\"]\n",
        line: 2,
        key: "discovery.agent_commands[1]",
        says: "is not a program name",
    },
    Case {
        file: "c.toml",
        text: "[dashboard]\nport = 80\n",
        line: 2,
        key: "dashboard.port",
        says: "must be between 1024 and 65535, got 80",
    },
    Case {
        file: "c.yaml",
        text: "dashboard:\n  refresh_interval: 0\n",
        line: 2,
        key: "dashboard.refresh_interval",
        says: "must be between 1 and 3600, got 0",
    },
    Case {
        file: "c.toml",
        text: "[messaging]\ndelivery_pause_ms = 5001\n",
        line: 2,
        key: "messaging.delivery_pause_ms",
        says: "must be between 0 and 5000, got 5001",
    },
    Case {
        file: "c.yaml",
        text: "messaging:\n  max_inline_bytes: 255\n",
        line: 2,
        key: "messaging.max_inline_bytes",
        says: "must be between 256 and 10240, got 255",
    },
    Case {
        file: "c.toml",
        text: "[messaging]\ncustom_types = [\"deploy\"]\n",
        line: 2,
        key: "messaging.custom_types[0]",
        says: "upper-case",
    },
    Case {
        file: "c.yaml",
        text: "messaging:\n  custom_types: [BLOCKED]\n",
        line: 2,
        key: "messaging.custom_types[0]",
        says: "built in already",
    },
    Case {
        file: "c.toml",
        text: "[messaging]\ncustom_types = [\"A\", \"A\"]\n",
        line: 2,
        key: "messaging.custom_types[1]",
        says: "appears twice",
    },
    Case {
        file: "c.yaml",
        text: "acks:\n  timeout_seconds: 301\n",
        line: 2,
        key: "acks.timeout_seconds",
        says: "must be between 1 and 300, got 301",
    },
    Case {
        file: "c.toml",
        text: "[acks]\nretry_delays = []\n",
        line: 2,
        key: "acks.retry_delays",
        says: "needs at least 1 element",
    },
    Case {
        file: "c.yaml",
        text: "acks:\n  retry_delays: [0]\n",
        line: 2,
        key: "acks.retry_delays[0]",
        says: "must be between 1 and 3600, got 0",
    },
    Case {
        file: "c.toml",
        text: "[acks]\nmax_retries = 11\n",
        line: 2,
        key: "acks.max_retries",
        says: "must be between 0 and 10, got 11",
    },
    Case {
        file: "c.toml",
        text: "project_root = \"/does/not/exist\"\n",
        line: 1,
        key: "project_root",
        says: "is not an existing directory",
    },
    // Syntax.
    Case {
        file: "c.toml",
        text: "[rate_limiting\n",
        line: 1,
        key: "",
        says: "not valid TOML",
    },
    Case {
        file: "c.yaml",
        text: "a: [\n",
        line: 2,
        key: "",
        says: "not valid YAML",
    },
];

#[test]
fn every_bad_key_type_and_value_is_reported_precisely() {
    let project = Project::new();
    for case in CASES {
        project.write(case.file, case.text);
        let out = swarm_outside_tmux(&project)
            .args(["config", "validate", "--file", case.file])
            .output()
            .expect("run");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{:?}: {err}", case.text);
        let key = if case.key.is_empty() {
            String::new()
        } else {
            format!("{}: ", case.key)
        };
        let want = format!("{}:{}: {key}", project.file(case.file).display(), case.line);
        let line = err
            .lines()
            .find(|l| l.trim_start().starts_with(&want))
            .unwrap_or_else(|| panic!("{:?}: no line starting {want:?} in\n{err}", case.text));
        assert!(
            line.contains(case.says),
            "{:?}: {line:?} lacks {:?}",
            case.text,
            case.says
        );
    }
}

#[test]
fn all_problems_are_listed_not_just_the_first() {
    let project = Project::new();
    project.write(
        ".claudeswarm.yaml",
        "rate_limiting:\n  messages_per_minute: 0\n  burst: 1\nlocking:\n  stale_timeout: 1\ndashbord: {}\n",
    );
    let out = swarm_outside_tmux(&project)
        .args(["config", "validate"])
        .env("SWARM_ACKS_MAX_RETRIES", "-1")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("invalid configuration (5 problems)"), "{err}");
    for line in [
        ":2: rate_limiting.messages_per_minute",
        ":3: rate_limiting.burst",
        ":5: locking.stale_timeout",
        ":6: dashbord",
        "$SWARM_ACKS_MAX_RETRIES: acks.max_retries",
    ] {
        assert!(err.contains(line), "{line} missing in {err}");
    }
}

#[test]
fn yaml_limits_of_the_original() {
    let project = Project::new();
    let deep = format!("a: {}1{}\n", "{b: ".repeat(11), "}".repeat(11));
    project.write("deep.yaml", &deep);
    let out = swarm_outside_tmux(&project)
        .args(["config", "validate", "--file", "deep.yaml"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("nesting depth exceeds the maximum of 10"),
        "{}",
        stderr(&out)
    );
    project.write("big.toml", &format!("# {}\n", "x".repeat(1_048_576)));
    let out = swarm_outside_tmux(&project)
        .args(["config", "validate", "--file", "big.toml"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("too large"), "{}", stderr(&out));
}

#[test]
fn environment_overrides_are_typed_and_named() {
    let project = Project::new();
    let out = swarm_outside_tmux(&project)
        .args(["config", "show", "--json"])
        .env("SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE", "20")
        .env("SWARM_DISCOVERY_AUTO_REFRESH_INTERVAL", "30")
        .env(
            "SWARM_ONBOARDING_CUSTOM_MESSAGES",
            "[\"one, with a comma\", \"two\"]",
        )
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let json = stdout_json(&out);
    assert_eq!(json["rate_limiting"]["messages_per_minute"], 20);
    assert_eq!(json["discovery"]["auto_refresh_interval"], 30);
    assert_eq!(
        json["onboarding"]["custom_messages"],
        serde_json::json!(["one, with a comma", "two"])
    );
    assert_eq!(
        json["_sources"]["rate_limiting.messages_per_minute"],
        serde_json::json!({"from": "env", "variable": "SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE"})
    );
    for (var, value, says) in [
        (
            "SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE",
            "many",
            "expected a whole number, got \"many\"",
        ),
        (
            "SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE",
            "0",
            "must be between 1 and 1000, got 0",
        ),
        (
            "SWARM_LOCKING_AUTO_CLEANUP",
            "maybe",
            "expected true or false",
        ),
        (
            "SWARM_ACKS_RETRY_DELAYS",
            "60,soon",
            "expected a whole number",
        ),
        (
            "SWARM_RATE_LIMITING_MESSAGES_PER_MINUT",
            "5",
            "not a config key (did you mean `SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE`?)",
        ),
        (
            // Too far from any key for a guess: the section's keys instead.
            "SWARM_RATE_LIMITING_MESSAGES",
            "5",
            "not a config key; [rate_limiting] is set with SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE,",
        ),
    ] {
        let out = swarm_outside_tmux(&project)
            .args(["config", "show"])
            .env(var, value)
            .output()
            .expect("run");
        // `config show` warns and shows the defaults in use instead.
        assert_eq!(out.status.code(), Some(0), "{var}={value}");
        let err = stderr(&out);
        assert!(err.starts_with("swarm: warning: "), "{var}: {err}");
        assert!(err.contains(&format!("${var}: ")), "{var}: {err}");
        assert!(err.contains(says), "{var}={value}: {err}");
    }
    // Other SWARM_* variables are not config keys and are left alone.
    swarm_outside_tmux(&project)
        .args(["config", "show"])
        .env("SWARM_SOMETHING_ELSE", "x")
        .assert()
        .success();
}

/// A variable of a known section whose key is nothing like any of the
/// section's keys gets the list of keys, not a far-fetched "did you mean"
/// (`SWARM_MESSAGING_FOO` is not a typo of `SWARM_MESSAGING_OPERATOR`).
#[test]
fn only_near_names_are_suggested_for_environment_variables() {
    let project = Project::new();
    project.write(".claudeswarm.toml", "");
    let validate_with = |var: &str| {
        let out = swarm_outside_tmux(&project)
            .args(["config", "validate"])
            .env(var, "1")
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{var}");
        stderr(&out)
    };
    let err = validate_with("SWARM_MESSAGING_FOO");
    assert!(
        err.contains("$SWARM_MESSAGING_FOO: not a config key; [messaging] is set with "),
        "{err}"
    );
    assert!(!err.contains("did you mean"), "{err}");
    let err = validate_with("SWARM_MESSAGING_OPERATR");
    assert!(
        err.contains("(did you mean `SWARM_MESSAGING_OPERATOR`?)"),
        "{err}"
    );
}

#[test]
fn the_config_is_found_from_the_project_root_not_the_cwd() {
    let project = Project::new();
    std::fs::create_dir_all(project.file("src/deep")).expect("mkdir");
    project.write(".claudeswarm.toml", "[dashboard]\nport = 9100\n");
    // A stray file in the cwd is not the project's config.
    project.write("src/deep/.claudeswarm.toml", "[dashboard]\nport = 9200\n");
    let out = swarm_outside_tmux(&project)
        .current_dir(project.file("src/deep"))
        .args(["config", "show", "--json"])
        .output()
        .expect("run");
    assert_eq!(stdout_json(&out)["dashboard"]["port"], 9100);
}

#[test]
fn config_without_a_subcommand_prints_help_and_exits_2() {
    let project = Project::new();
    for group in ["config", "coord"] {
        let out = swarm_outside_tmux(&project)
            .arg(group)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{group}");
        let text = format!("{}{}", stdout(&out), stderr(&out));
        assert!(text.contains(&format!("Usage: swarm {group}")), "{text}");
        assert!(text.contains("Commands:"), "{text}");
    }
}

#[test]
fn edit_runs_the_editor_then_validates() {
    let project = Project::new();
    let editor = project.file("editor.sh");
    // An "editor" that appends a misspelt key to the file it is given.
    project.write(
        "editor.sh",
        "#!/bin/sh\nprintf '[acks]\\nmax_retrys = 2\\n' >> \"$1\"\n",
    );
    let chmod = std::process::Command::new("chmod")
        .args(["+x", editor.to_str().expect("utf-8")])
        .status()
        .expect("chmod");
    assert!(chmod.success());
    project.write(".claudeswarm.toml", "[locking]\nstale_timeout = 120\n");
    let out = swarm_outside_tmux(&project)
        .args(["config", "edit"])
        .env("EDITOR", &editor)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(":4: acks.max_retrys: unknown key (did you mean `max_retries`?)"),
        "{err}"
    );
    // No file yet: it is created from the template, then edited.
    std::fs::remove_file(project.file(".claudeswarm.toml")).expect("rm");
    project.write("editor.sh", "#!/bin/sh\nexit 0\n");
    let out = swarm_outside_tmux(&project)
        .args(["config", "edit"])
        .env("EDITOR", &editor)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("created"), "{}", stdout(&out));
    assert!(
        project
            .read(".claudeswarm.toml")
            .starts_with("# swarm configuration")
    );
}

#[test]
fn a_suspicious_editor_is_ignored_for_a_fallback() {
    let project = Project::new();
    project.write(".claudeswarm.toml", "");
    // PATH holds only a fake `vi` (the first fallback, vim, is absent).
    let bin = project.file("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    project.write("bin/vi", "#!/bin/sh\necho \"vi ran on $1\" > \"$1.log\"\n");
    let chmod = std::process::Command::new("chmod")
        .args(["+x", bin.join("vi").to_str().expect("utf-8")])
        .status()
        .expect("chmod");
    assert!(chmod.success());
    let out = swarm_outside_tmux(&project)
        .args(["config", "edit"])
        .env("EDITOR", "vim; touch pwned")
        .env("PATH", &bin)
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ignoring $EDITOR"),
        "{}",
        stderr(&out)
    );
    assert!(!project.file("pwned").exists());
    assert!(
        project
            .read(".claudeswarm.toml.log")
            .starts_with("vi ran on")
    );
    // No editor at all.
    let out = swarm_outside_tmux(&project)
        .args(["config", "edit"])
        .env_remove("EDITOR")
        .env("PATH", project.file("nothing-here"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no editor found"), "{}", stderr(&out));
}

/// `swarm init` writes a project file that sets nothing by itself, so the
/// per-user file's settings (`notify.events`, as the README suggests) stay
/// in force; a value the project does set wins, and `config show` says
/// which file's value it overrode.
#[test]
fn the_user_file_is_not_silently_overridden_by_init() {
    let project = Project::new();
    let user = project.user_config(
        "[notify]\nevents = [\"needs_input\"]\n\n[rate_limiting]\nmessages_per_minute = 20\n",
    );
    let out = swarm_outside_tmux(&project)
        .arg("init")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", stderr(&out));
    let written = project.read(".claudeswarm.toml");
    assert!(written.contains("# events = ["), "{written}");
    let show = |project: &Project| {
        let out = swarm_outside_tmux(project)
            .args(["config", "show", "--json"])
            .output()
            .expect("run");
        assert!(out.status.success(), "{}", stderr(&out));
        stdout_json(&out)
    };
    let json = show(&project);
    assert_eq!(json["notify"]["events"], serde_json::json!(["needs_input"]));
    assert_eq!(json["rate_limiting"]["messages_per_minute"], 20);
    let user_path = user.display().to_string();
    assert_eq!(
        json["_sources"]["notify.events"],
        serde_json::json!({"from": "user_file", "path": user_path})
    );

    // The project sets one of the user's keys: its value wins, and says
    // whose it replaced.
    let file = project.file(".claudeswarm.toml");
    project.write(
        ".claudeswarm.toml",
        &written.replace("# messages_per_minute = 10", "messages_per_minute = 5"),
    );
    let json = show(&project);
    assert_eq!(json["rate_limiting"]["messages_per_minute"], 5);
    assert_eq!(
        json["_sources"]["rate_limiting.messages_per_minute"],
        serde_json::json!({
            "from": "file",
            "path": file.display().to_string(),
            "overrides": {"from": "user_file", "path": user_path}
        })
    );
    let out = swarm_outside_tmux(&project)
        .args(["config", "show"])
        .env("SWARM_NOTIFY_EVENTS", "stuck")
        .output()
        .expect("run");
    let text = stdout(&out);
    let line = |key: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{key} =")))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .to_owned()
    };
    assert!(
        line("messages_per_minute").ends_with("file (overrides user file)"),
        "{text}"
    );
    assert!(
        line("events").ends_with("env SWARM_NOTIFY_EVENTS (overrides user file)"),
        "{text}"
    );
}
