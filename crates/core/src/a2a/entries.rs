//! `Entries`: the records of one A2A store file (cards by agent, tasks by
//! id, the delegation history, ...), in file order. A record swarm cannot
//! read is kept as it was found and written back untouched, so that a
//! swarm write loses nothing another tool wrote (the Python tool drops
//! such records on its next write). The one exception is a command that
//! writes that very record anew (an agent registering its card again),
//! and it says so.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A record of an A2A store.
pub(crate) trait Record: Serialize + DeserializeOwned {
    /// What the record's type cannot say by itself (a rate outside
    /// 0..1, ...); `Err` says what is wrong.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Slot<T> {
    Read(T),
    Kept(Value),
}

/// The records of a store: keyed (a JSON object) or a list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entries<T> {
    keyed: bool,
    items: Vec<(Option<String>, Slot<T>)>,
}

impl<T: Record> Entries<T> {
    /// No records; `keyed` says whether the file holds an object or a list.
    pub(crate) fn empty(keyed: bool) -> Entries<T> {
        Entries {
            keyed,
            items: Vec::new(),
        }
    }

    /// Reads the records of `value` (an object when `keyed`, else a list);
    /// `Err` when it is neither. Each record that cannot be read is kept
    /// as found and described in the returned problems.
    pub(crate) fn from_value(
        keyed: bool,
        value: Value,
    ) -> Result<(Entries<T>, Vec<String>), String> {
        let raw: Vec<(Option<String>, Value)> = match (keyed, value) {
            (true, Value::Object(map)) => map.into_iter().map(|(k, v)| (Some(k), v)).collect(),
            (false, Value::Array(list)) => list.into_iter().map(|v| (None, v)).collect(),
            (true, _) => return Err("expected a JSON object of records".into()),
            (false, _) => return Err("expected a JSON list of records".into()),
        };
        let mut problems = Vec::new();
        let mut items = Vec::with_capacity(raw.len());
        for (i, (key, value)) in raw.into_iter().enumerate() {
            let parsed = serde_json::from_value::<T>(value.clone())
                .map_err(|e| e.to_string())
                .and_then(|r| r.check().map(|()| r));
            let slot = match parsed {
                Ok(record) => Slot::Read(record),
                Err(why) => {
                    let name = match &key {
                        Some(k) => format!("record {k:?}"),
                        None => format!("record {i}"),
                    };
                    problems.push(format!("{name}: {why}"));
                    Slot::Kept(value)
                }
            };
            items.push((key, slot));
        }
        Ok((Entries { keyed, items }, problems))
    }

    /// The records as they go into the file: readable ones serialised,
    /// the others exactly as they were read.
    pub(crate) fn to_value(&self) -> Result<Value, serde_json::Error> {
        let value = |slot: &Slot<T>| match slot {
            Slot::Read(r) => serde_json::to_value(r),
            Slot::Kept(v) => Ok(v.clone()),
        };
        if self.keyed {
            let mut map = Map::with_capacity(self.items.len());
            for (key, slot) in &self.items {
                map.insert(key.clone().unwrap_or_default(), value(slot)?);
            }
            Ok(Value::Object(map))
        } else {
            Ok(Value::Array(
                self.items
                    .iter()
                    .map(|(_, slot)| value(slot))
                    .collect::<Result<_, _>>()?,
            ))
        }
    }

    /// The readable record under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        self.items.iter().find_map(|(k, slot)| match slot {
            Slot::Read(r) if k.as_deref() == Some(key) => Some(r),
            _ => None,
        })
    }

    /// The readable record under `key`, to change.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut T> {
        self.items.iter_mut().find_map(|(k, slot)| match slot {
            Slot::Read(r) if k.as_deref() == Some(key) => Some(r),
            _ => None,
        })
    }

    /// True when there is a record under `key`, readable or not.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.items.iter().any(|(k, _)| k.as_deref() == Some(key))
    }

    /// Keys starting with `prefix`, in file order (readable or not).
    pub(crate) fn keys_starting_with(&self, prefix: &str) -> Vec<String> {
        self.items
            .iter()
            .filter_map(|(k, _)| k.as_deref())
            .filter(|k| k.starts_with(prefix))
            .map(str::to_owned)
            .collect()
    }

    /// Puts `record` under `key`: in place when the key exists (like a
    /// Python dict, also over an unreadable record), else at the end.
    pub(crate) fn insert(&mut self, key: String, record: T) {
        match self
            .items
            .iter_mut()
            .find(|(k, _)| k.as_deref() == Some(key.as_str()))
        {
            Some((_, slot)) => *slot = Slot::Read(record),
            None => self.items.push((Some(key), Slot::Read(record))),
        }
    }

    /// Appends `record` to a list.
    pub(crate) fn push(&mut self, record: T) {
        self.items.push((None, Slot::Read(record)));
    }

    /// Keeps only the last `max` records (the oldest go first).
    pub(crate) fn keep_last(&mut self, max: usize) {
        let excess = self.items.len().saturating_sub(max);
        self.items.drain(..excess);
    }

    /// The readable records, in order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &T> {
        self.items.iter().filter_map(|(_, slot)| match slot {
            Slot::Read(r) => Some(r),
            Slot::Kept(_) => None,
        })
    }

    /// Every record, readable or not.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are no records at all.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Item {
        n: u32,
    }

    impl Record for Item {
        fn check(&self) -> Result<(), String> {
            if self.n > 9 {
                return Err("n is above 9".into());
            }
            Ok(())
        }
    }

    #[test]
    fn unreadable_records_are_kept_in_place() {
        let v = json!({"a": {"n": 1}, "b": {"n": "x"}, "c": {"n": 10}, "d": {"n": 2}});
        let (mut e, problems) = Entries::<Item>::from_value(true, v.clone()).expect("object");
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("record \"b\""));
        assert!(problems[1].contains("above 9"));
        assert_eq!(e.values().map(|i| i.n).collect::<Vec<_>>(), [1, 2]);
        assert!(e.contains_key("b") && e.get("b").is_none());
        assert_eq!(e.to_value().expect("value"), v);
        e.insert("b".into(), Item { n: 3 });
        e.insert("e".into(), Item { n: 4 });
        assert_eq!(
            e.to_value().expect("value"),
            json!({"a": {"n": 1}, "b": {"n": 3}, "c": {"n": 10}, "d": {"n": 2}, "e": {"n": 4}})
        );
        assert_eq!(e.keys_starting_with("d"), ["d"]);
    }

    #[test]
    fn lists_keep_the_newest() {
        let (mut e, problems) =
            Entries::<Item>::from_value(false, json!([{"n": 1}, "junk", {"n": 2}])).expect("list");
        assert_eq!(
            problems,
            ["record 1: invalid type: string \"junk\", expected struct Item"]
        );
        e.push(Item { n: 3 });
        e.keep_last(2);
        assert_eq!(e.to_value().expect("value"), json!([{"n": 2}, {"n": 3}]));
        assert!(Entries::<Item>::from_value(false, json!({})).is_err());
        assert!(Entries::<Item>::from_value(true, json!([])).is_err());
    }
}
