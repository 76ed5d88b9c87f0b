//! The lock-file reader: any bytes give a record or a reason, never a
//! panic; a record it accepts names a holder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use swarm::LockRecord;

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = LockRecord::parse(data, "0000.lock") {
        assert!(record.locked_at.is_finite());
    }
});
