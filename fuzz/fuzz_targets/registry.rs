//! The registry reader survives any bytes, and every agent it keeps has a
//! valid id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swarm::Registry;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        if let Ok((registry, _skipped)) = Registry::from_value(value) {
            for a in &registry.agents {
                assert!(swarm::validate_agent_id(&a.id).is_ok());
            }
        }
    }
});
