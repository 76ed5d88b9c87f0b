//! Loading, checking and overriding the config as a whole.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use super::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).expect("write");
    p
}

fn problems(r: Result<impl std::fmt::Debug, ConfigError>) -> Vec<Problem> {
    match r {
        Err(ConfigError::Invalid { problems }) => problems,
        other => panic!("expected problems, got {other:?}"),
    }
}

fn env(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    pairs
        .iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect()
}

#[test]
fn defaults_match_the_spec() {
    let c = Config::default();
    assert_eq!(c.rate_limiting.messages_per_minute, 10);
    assert_eq!(c.rate_limiting.window_seconds, 60);
    assert_eq!(c.locking.stale_timeout, 300);
    assert_eq!(c.discovery.stale_threshold, 60);
    assert_eq!(c.dashboard.port, 8080);
    assert_eq!(c.messaging.delivery_pause_ms, None);
    assert_eq!(c.messaging.max_inline_bytes, 4096);
    assert_eq!(c.acks.retry_delays, [60, 120]);
    assert_eq!(c.acks.max_retries, 3);
    assert!(c.validate().is_empty(), "{:?}", c.validate());
}

#[test]
fn the_key_table_matches_the_config_type() {
    // Every key of the serialised Config is in the table and the reverse,
    // so nothing can be added to one and forgotten in the other.
    let c = Config {
        project_root: Some(PathBuf::from("/")),
        ..Config::default()
    };
    let doc = serde_json::to_value(&c).expect("json");
    let mut from_type = Vec::new();
    for (name, v) in doc.as_object().expect("object") {
        match v.as_object() {
            Some(keys) => from_type.extend(keys.keys().map(|k| format!("{name}.{k}"))),
            None => from_type.push(name.clone()),
        }
    }
    let from_table: Vec<String> = keys::KEYS.iter().map(|k| k.path()).collect();
    let mut a = from_type.clone();
    let mut b = from_table.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn templates_hold_every_key_and_load_as_the_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, format) in [("t.toml", Format::Toml), ("t.yaml", Format::Yaml)] {
        let text = template(format);
        for key in keys::KEYS {
            assert!(text.contains(key.name), "{name} lacks {}", key.path());
        }
        let path = write(dir.path(), name, &text);
        let loaded = load_with(Some(&path), &[]).expect(name);
        assert_eq!(loaded.config, Config::default(), "{name}");
        // The file sets nothing: a per-user value is never overridden by a
        // file nobody edited.
        for (key, origin) in &loaded.origins {
            assert_eq!(origin, &Origin::Default, "{name}: {}", key.path());
        }
        // A key uncommented (with its section, in YAML) holds its default.
        let one = text
            .replace("# rate_limiting:\n", "rate_limiting:\n")
            .replace("# window_seconds", "window_seconds");
        let path = write(dir.path(), name, &one);
        let loaded = load_with(Some(&path), &[]).expect(name);
        assert_eq!(loaded.config, Config::default(), "{name}");
        assert_eq!(
            loaded.origin("rate_limiting.window_seconds"),
            Some(&Origin::File(path.clone()))
        );
    }
}

#[test]
fn toml_and_yaml_load_the_same_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = write(
        dir.path(),
        "a.toml",
        "[rate_limiting]\nmessages_per_minute = 20\n[discovery]\nagent_commands = [\"claude\", \"opencode\"]\n",
    );
    let y = write(
        dir.path(),
        "a.yaml",
        "rate_limiting:\n  messages_per_minute: 20\ndiscovery:\n  agent_commands: [claude, opencode]\n",
    );
    let a = load_file(&t).expect("toml");
    assert_eq!(a, load_file(&y).expect("yaml"));
    assert_eq!(a.rate_limiting.messages_per_minute, 20);
    assert_eq!(a.rate_limiting.window_seconds, 60);
}

#[test]
fn problems_name_file_line_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = write(
        dir.path(),
        "c.toml",
        "[rate_limiting]\nwindow_seconds = 5\nburst_size = 3\n",
    );
    let p = problems(load_file(&t));
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].key, "rate_limiting.burst_size");
    assert_eq!(
        p[0].place,
        Place::File {
            path: t.clone(),
            line: Some(3)
        }
    );
    assert!(p[0].to_string().starts_with(&format!(
        "{}:3: rate_limiting.burst_size: unknown key",
        t.display()
    )));
    let y = write(
        dir.path(),
        "c.yaml",
        "locking:\n  stale_timeout: 60\nrate_limit:\n  x: 1\n",
    );
    let p = problems(load_file(&y));
    assert_eq!(
        (p[0].key.as_str(), &p[0].place),
        (
            "rate_limit",
            &Place::File {
                path: y,
                line: Some(3)
            }
        )
    );
}

#[test]
fn every_problem_is_reported_in_file_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = write(
        dir.path(),
        "r.toml",
        "[rate_limiting]\nmessages_per_minute = 0\nwindow_seconds = 7200\n[locking]\nstale_timeout = 5\nauto_cleanup = \"yes\"\n",
    );
    let lines: Vec<Option<usize>> = problems(load_file(&t))
        .into_iter()
        .map(|p| match p.place {
            Place::File { line, .. } => line,
            Place::Env(_) => None,
        })
        .collect();
    assert_eq!(lines, [Some(2), Some(3), Some(5), Some(6)]);
}

#[test]
fn syntax_errors_and_file_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = write(dir.path(), "s.toml", "[rate_limiting\n");
    let p = problems(load_file(&t));
    assert!(p[0].message.starts_with("not valid TOML"), "{p:?}");
    let y = write(dir.path(), "s.yaml", "a: [\n");
    assert!(
        problems(load_file(&y))[0]
            .message
            .starts_with("not valid YAML")
    );
    assert!(matches!(
        load_file(&dir.path().join("none.toml")),
        Err(ConfigError::NotFound { .. })
    ));
    let x = write(dir.path(), "c.ini", "");
    assert!(matches!(load_file(&x), Err(ConfigError::Format { .. })));
    let big = write(
        dir.path(),
        "big.yaml",
        &"#".repeat(MAX_CONFIG_BYTES as usize + 1),
    );
    assert!(matches!(load_file(&big), Err(ConfigError::TooLarge { .. })));
}

#[test]
fn env_overrides_win_and_say_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = write(
        dir.path(),
        "e.toml",
        "[rate_limiting]\nmessages_per_minute = 5\n",
    );
    let loaded = load_with(
        Some(&t),
        &env(&[
            ("SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE", "20"),
            ("SWARM_ACKS_RETRY_DELAYS", "5,10,15"),
            ("SWARM_TMUX_SOCKET", "not-a-config-key"),
        ]),
    )
    .expect("load");
    assert_eq!(loaded.config.rate_limiting.messages_per_minute, 20);
    assert_eq!(loaded.config.acks.retry_delays, [5, 10, 15]);
    assert_eq!(
        loaded.origin("rate_limiting.messages_per_minute"),
        Some(&Origin::Env(
            "SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE".into()
        ))
    );
    assert_eq!(
        loaded.origin("rate_limiting.window_seconds"),
        Some(&Origin::Default)
    );
}

#[test]
fn bad_env_values_name_the_variable() {
    let p = problems(load_with(
        None,
        &env(&[
            ("SWARM_RATE_LIMITING_MESSAGES_PER_MINUTE", "lots"),
            ("SWARM_ACKS_MAX_RETRIES", "99"),
            ("SWARM_LOCKING_STALE_TIMOUT", "60"),
        ]),
    ));
    let text: Vec<String> = p.iter().map(|p| p.to_string()).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert!(
        text[0].starts_with(
            "$SWARM_ACKS_MAX_RETRIES: acks.max_retries: must be between 0 and 10, got 99"
        ),
        "{text:?}"
    );
    assert!(text[1].starts_with("$SWARM_LOCKING_STALE_TIMOUT: not a config key (did you mean `SWARM_LOCKING_STALE_TIMEOUT`?)"), "{text:?}");
    assert!(text[2].contains("expected a whole number"), "{text:?}");
}

#[test]
fn far_env_names_get_the_list_not_a_suggestion() {
    let p = problems(load_with(
        None,
        &env(&[("SWARM_MESSAGING_FOO", "1"), ("SWARM_ACKS_X", "1")]),
    ));
    let text: Vec<String> = p.iter().map(|p| p.to_string()).collect();
    assert_eq!(text.len(), 2, "{text:?}");
    for t in &text {
        assert!(!t.contains("did you mean"), "{text:?}");
        assert!(t.contains(": not a config key; ["), "{text:?}");
    }
}

#[test]
fn search_prefers_yaml_and_walks_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("a/b");
    fs::create_dir_all(&sub).expect("mkdir");
    assert_eq!(find(&sub), None);
    write(dir.path(), ".claudeswarm.toml", "");
    assert_eq!(find(&sub), Some(dir.path().join(".claudeswarm.toml")));
    write(dir.path(), ".claudeswarm.yaml", "");
    assert_eq!(find(&sub), Some(dir.path().join(".claudeswarm.yaml")));
    assert_eq!(load(&sub, &[]).expect("load").config, Config::default());
}

#[test]
fn the_guide_lists_every_key() {
    let guide = &crate::support::repo::text("docs/guide/configuration.md");
    for key in keys::KEYS {
        assert!(
            guide.contains(&format!("| `{}` |", key.path())),
            "docs/guide/configuration.md's table lacks {}",
            key.path()
        );
    }
}

/// An environment whose per-user file is `dir/swarm/config.toml`.
fn user_env(dir: &Path, more: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    let mut e = env(more);
    e.push(("XDG_CONFIG_HOME".into(), dir.as_os_str().to_owned()));
    e
}

fn write_user(dir: &Path, text: &str) -> PathBuf {
    fs::create_dir_all(dir.join("swarm")).expect("mkdir");
    write(dir, "swarm/config.toml", text)
}

#[test]
fn notify_and_feed_defaults() {
    let c = Config::default();
    assert!(c.notify.tmux);
    assert!(!c.notify.desktop);
    assert_eq!(c.notify.webhook, None);
    assert_eq!(c.notify.command, None);
    assert_eq!(c.notify.events, keys::NOTIFY_EVENTS);
    assert_eq!(c.notify.throttle_seconds, 60);
    assert_eq!(c.notify.stuck_after, 600);
    assert_eq!(c.feed.rotate_bytes, 4 * 1024 * 1024);
    assert_eq!(c.feed.keep_bytes, 40 * 1024 * 1024);
    assert_eq!(c.feed.keep_days, 30);
}

#[test]
fn the_user_file_is_found_by_xdg_else_home() {
    let xdg = env(&[("XDG_CONFIG_HOME", "/x/conf"), ("HOME", "/home/u")]);
    assert_eq!(
        user_file(&xdg),
        Some(PathBuf::from("/x/conf/swarm/config.toml"))
    );
    // A relative XDG_CONFIG_HOME is ignored, as the XDG rule says.
    let relative = env(&[("XDG_CONFIG_HOME", "conf"), ("HOME", "/home/u")]);
    assert_eq!(
        user_file(&relative),
        Some(PathBuf::from("/home/u/.config/swarm/config.toml"))
    );
    assert_eq!(user_file(&env(&[])), None);
}

#[test]
fn the_project_file_wins_over_the_user_file_and_the_environment_over_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let user = write_user(
        dir.path(),
        "[rate_limiting]\nmessages_per_minute = 7\nwindow_seconds = 7\n[notify]\ndesktop = true\nthrottle_seconds = 5\n",
    );
    let project = write(
        dir.path(),
        "p.toml",
        "[rate_limiting]\nmessages_per_minute = 20\n",
    );
    let loaded = load_with(
        Some(&project),
        &user_env(dir.path(), &[("SWARM_NOTIFY_THROTTLE_SECONDS", "9")]),
    )
    .expect("load");
    let c = &loaded.config;
    assert_eq!(c.rate_limiting.messages_per_minute, 20);
    assert_eq!(c.rate_limiting.window_seconds, 7);
    assert!(c.notify.desktop);
    assert_eq!(c.notify.throttle_seconds, 9);
    assert_eq!(loaded.file.as_deref(), Some(project.as_path()));
    assert_eq!(loaded.user_file.as_deref(), Some(user.as_path()));
    assert_eq!(
        loaded.origin("rate_limiting.messages_per_minute"),
        Some(&Origin::File(project.clone()))
    );
    assert_eq!(
        loaded.origin("rate_limiting.window_seconds"),
        Some(&Origin::UserFile(user.clone()))
    );
    assert_eq!(
        loaded.origin("notify.throttle_seconds"),
        Some(&Origin::Env("SWARM_NOTIFY_THROTTLE_SECONDS".into()))
    );
    assert_eq!(
        loaded.origin("locking.stale_timeout"),
        Some(&Origin::Default)
    );
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
}

#[test]
fn a_bad_user_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let user = write_user(dir.path(), "[notify]\nthrottle_seconds = -1\n");
    let p = problems(load_with(None, &user_env(dir.path(), &[])));
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(
        p[0].place,
        Place::File {
            path: user,
            line: Some(2)
        }
    );
    assert_eq!(p[0].key, "notify.throttle_seconds");
}

#[test]
fn secrets_come_from_the_user_file_or_the_environment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let user = write_user(
        dir.path(),
        "[notify]\nwebhook = \"https://ntfy.sh/from-user\"\ncommand = \"notify-send hi\"\n",
    );
    let loaded = load_with(None, &user_env(dir.path(), &[])).expect("load");
    let n = &loaded.config.notify;
    assert_eq!(n.webhook.as_deref(), Some("https://ntfy.sh/from-user"));
    assert_eq!(n.command.as_deref(), Some("notify-send hi"));
    assert_eq!(
        loaded.origin("notify.webhook"),
        Some(&Origin::UserFile(user))
    );
    let loaded = load_with(
        None,
        &user_env(
            dir.path(),
            &[("SWARM_NOTIFY_WEBHOOK", " https://ntfy.sh/from-env ")],
        ),
    )
    .expect("load");
    assert_eq!(
        loaded.config.notify.webhook.as_deref(),
        Some("https://ntfy.sh/from-env")
    );
}

#[test]
fn secrets_in_the_project_file_are_ignored_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text, line) in [
        (
            "s.toml",
            "[notify]\ndesktop = true\nwebhook = \"https://ntfy.sh/leaked-topic\"\ncommand = \"curl leaked\"\n",
            3,
        ),
        (
            "s.yaml",
            "notify:\n  desktop: true\n  webhook: https://ntfy.sh/leaked-topic\n  command: curl leaked\n",
            3,
        ),
    ] {
        let path = write(dir.path(), name, text);
        let loaded = load_with(Some(&path), &[]).expect(name);
        let n = &loaded.config.notify;
        assert!(n.desktop, "{name}: the rest of the section still counts");
        assert_eq!(n.webhook, None, "{name}");
        assert_eq!(n.command, None, "{name}");
        assert_eq!(loaded.origin("notify.webhook"), Some(&Origin::Default));
        assert_eq!(loaded.warnings.len(), 2, "{name}: {:?}", loaded.warnings);
        let w = &loaded.warnings[0];
        assert!(
            w.starts_with(&format!(
                "{}:{line}: notify.webhook: ignored",
                path.display()
            )),
            "{w}"
        );
        assert!(w.contains("$SWARM_NOTIFY_WEBHOOK"), "{w}");
        assert!(w.contains("swarm/config.toml"), "{w}");
        assert!(loaded.warnings[1].contains("$SWARM_NOTIFY_COMMAND"));
        for w in &loaded.warnings {
            assert!(!w.contains("leaked"), "a secret quoted: {w}");
        }
    }
    // Even a value that would be invalid is only ignored, never quoted.
    let path = write(
        dir.path(),
        "bad.toml",
        "[notify]\nwebhook = \"ftp://leaked\"\n",
    );
    let loaded = load_with(Some(&path), &[]).expect("ignored, not checked");
    assert!(!loaded.warnings[0].contains("leaked"));
}

#[test]
fn the_dashboards_allowed_hosts_come_only_from_the_person() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "p.toml",
        "[dashboard]\nport = 9001\nallowed_hosts = [\"rebound.evil.example\"]\n",
    );
    let loaded = load_with(Some(&path), &[]).expect("load");
    assert_eq!(loaded.config.dashboard.port, 9001, "the rest still counts");
    assert!(loaded.config.dashboard.allowed_hosts.is_empty());
    assert_eq!(
        loaded.origin("dashboard.allowed_hosts"),
        Some(&Origin::Default)
    );
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0].contains("dashboard.allowed_hosts: ignored")
            && loaded.warnings[0].contains("$SWARM_DASHBOARD_ALLOWED_HOSTS"),
        "{}",
        loaded.warnings[0]
    );
    let user = write_user(dir.path(), "[dashboard]\nallowed_hosts = [\"box.lan\"]\n");
    let loaded = load_with(Some(&path), &user_env(dir.path(), &[])).expect("load");
    assert_eq!(loaded.config.dashboard.allowed_hosts, ["box.lan"]);
    assert_eq!(
        loaded.origin("dashboard.allowed_hosts"),
        Some(&Origin::UserFile(user))
    );
}

#[test]
fn a_secret_from_the_environment_still_wins_over_a_project_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "e.toml",
        "[notify]\nwebhook = \"https://ntfy.sh/project\"\n",
    );
    let loaded = load_with(
        Some(&path),
        &env(&[("SWARM_NOTIFY_WEBHOOK", "https://ntfy.sh/env")]),
    )
    .expect("load");
    assert_eq!(
        loaded.config.notify.webhook.as_deref(),
        Some("https://ntfy.sh/env")
    );
    assert_eq!(loaded.warnings.len(), 1);
}

#[test]
fn bad_webhooks_and_event_names_are_errors_that_quote_no_secret() {
    let p = problems(load_with(
        None,
        &env(&[
            ("SWARM_NOTIFY_WEBHOOK", "ftp://ntfy.sh/secret-topic"),
            ("SWARM_NOTIFY_EVENTS", "needs_input,finsihed"),
        ]),
    ));
    let text: Vec<String> = p.iter().map(|p| p.to_string()).collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(text[0].starts_with("$SWARM_NOTIFY_EVENTS: notify.events[1]: unknown name \"finsihed\" (did you mean `finished`?)"), "{text:?}");
    assert!(
        text[1].starts_with(
            "$SWARM_NOTIFY_WEBHOOK: notify.webhook: invalid webhook URL \"ftp://ntfy.sh/…\""
        ),
        "{text:?}"
    );
    assert!(!text[1].contains("secret-topic"));
    let dir = tempfile::tempdir().expect("tempdir");
    let t = write(
        dir.path(),
        "ev.toml",
        "[notify]\nevents = [\"stuck\", \"joined\"]\nstuck_after = 4\n",
    );
    let p = problems(load_file(&t));
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].key, "notify.events[1]");
    assert!(
        p[0].message.contains("known: needs_input, finished"),
        "{p:?}"
    );
    assert_eq!(p[1].key, "notify.stuck_after");
}

#[test]
fn the_user_file_given_as_the_file_is_read_as_the_users() {
    let dir = tempfile::tempdir().expect("tempdir");
    let user = write_user(dir.path(), "[notify]\nwebhook = \"https://ntfy.sh/mine\"\n");
    let loaded = load_with(Some(&user), &user_env(dir.path(), &[])).expect("load");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.file, None);
    assert_eq!(loaded.user_file.as_deref(), Some(user.as_path()));
    assert_eq!(
        loaded.config.notify.webhook.as_deref(),
        Some("https://ntfy.sh/mine")
    );
}

#[test]
fn budgets_and_prices_are_read_and_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        ".claudeswarm.toml",
        "[budget]\nagent_tokens = 1000\nswarm_cost = 12\nperiod = \"session\"\n\n[prices.\"gpt-5.1\"]\ninput = 1.25\noutput = 10\n",
    );
    let loaded = load_with(Some(&path), &env(&[("SWARM_BUDGET_AGENT_COST", "2.5")])).expect("load");
    let c = &loaded.config;
    assert_eq!(c.budget.agent_tokens, Some(1000));
    assert_eq!(c.budget.agent_cost, Some(2.5));
    assert_eq!(c.budget.swarm_cost, Some(12.0));
    assert_eq!(c.budget.period, BudgetPeriod::Session);
    assert!(c.budget.any());
    assert_eq!(c.prices["gpt-5.1"].output, 10.0);
    assert!(!Config::default().budget.any());

    let bad = write(
        dir.path(),
        "bad.toml",
        "[budget]\nagent_cost = -1\nperiod = \"week\"\n\n[prices.m]\ninput = 1\n",
    );
    let p = problems(load_with(
        Some(&bad),
        &env(&[("SWARM_BUDGET_SWARM_COST", "lots")]),
    ));
    let keys: Vec<&str> = p.iter().map(|p| p.key.as_str()).collect();
    assert!(keys.contains(&"budget.agent_cost"), "{p:?}");
    assert!(keys.contains(&"budget.period"), "{p:?}");
    assert!(keys.contains(&"prices.m"), "{p:?}");
    assert!(keys.contains(&"budget.swarm_cost"), "{p:?}");
}
