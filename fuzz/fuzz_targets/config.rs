//! The config loader: any TOML or YAML text gives a config or an error,
//! never a panic. The first byte picks the format.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let name = if first % 2 == 0 { "c.toml" } else { "c.yaml" };
    let path = dir.path().join(name);
    if std::fs::write(&path, rest).is_err() {
        return;
    }
    if let Ok(config) = swarm::load_config_file(&path) {
        assert!(config.validate().is_empty());
    }
});
