//! `AsRead`: the form a record was read in (its line in the log, its dict
//! in `PENDING_ACKS.json`), kept so that a record nobody changed is written
//! back byte for byte (docs/FORMATS.md). It is how a record is written, not
//! what it says, so it never takes part in equality: two records that say
//! the same are equal whatever they were read from.

/// The form a record was read in, if it was read; see the module doc.
#[derive(Clone, Debug)]
pub(crate) struct AsRead<T>(Option<T>);

impl<T> AsRead<T> {
    /// A record made here, not read.
    pub(crate) fn none() -> AsRead<T> {
        AsRead(None)
    }

    /// A record read in `form`.
    pub(crate) fn kept(form: T) -> AsRead<T> {
        AsRead(Some(form))
    }

    /// The form it was read in, if any.
    pub(crate) fn get(&self) -> Option<&T> {
        self.0.as_ref()
    }
}

impl<T> Default for AsRead<T> {
    fn default() -> AsRead<T> {
        AsRead::none()
    }
}

/// Always equal: see the module doc.
impl<T> PartialEq for AsRead<T> {
    fn eq(&self, _: &AsRead<T>) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::AsRead;

    #[derive(Debug, PartialEq)]
    struct Record {
        says: u8,
        read: AsRead<&'static str>,
    }

    #[test]
    fn equality_is_what_a_record_says_not_how_it_was_read() {
        let read = |says, line| Record {
            says,
            read: AsRead::kept(line),
        };
        let made = Record {
            says: 1,
            read: AsRead::none(),
        };
        assert_eq!(read(1, "{\"says\": 1}"), made);
        assert_eq!(read(1, "{\"says\":1}"), read(1, "{\"says\": 1}"));
        assert_ne!(read(2, "{\"says\": 1}"), made);
        assert_eq!(read(1, "x").read.get(), Some(&"x"));
        assert_eq!(made.read.get(), None);
    }
}
