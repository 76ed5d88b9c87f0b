//! `OrderedMap`: a JSON object kept in its file order (skill scores,
//! per-skill metrics, relationships), so that what swarm writes back lists
//! keys in the order the Python tool wrote them, and "first" and "top N"
//! mean the same in both tools.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A JSON object as an ordered list of entries with unique keys.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OrderedMap<V>(Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> OrderedMap<V> {
    /// An empty map.
    pub(crate) fn new() -> OrderedMap<V> {
        OrderedMap(Vec::new())
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key`: in place when it exists (like a Python dict), else at
    /// the end.
    pub(crate) fn insert(&mut self, key: String, value: V) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }

    /// The entries, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// How many entries there are.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<V> FromIterator<(String, V)> for OrderedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut map = OrderedMap::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(PhantomData<V>);

        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = OrderedMap<V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = OrderedMap::new();
                // A repeated key keeps its first place and its last value,
                // as Python's json module reads it.
                while let Some((k, v)) = access.next_entry::<String, V>()? {
                    map.insert(k, v);
                }
                Ok(map)
            }
        }

        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_file_order_and_python_duplicate_rules() {
        let m: OrderedMap<f64> =
            serde_json::from_str(r#"{"z": 1, "a": 0.5, "z": 0.25}"#).expect("parse");
        assert_eq!(m.iter().collect::<Vec<_>>(), [("z", &0.25), ("a", &0.5)]);
        assert_eq!(
            serde_json::to_string(&m).expect("write"),
            r#"{"z":0.25,"a":0.5}"#
        );
        assert!(serde_json::from_str::<OrderedMap<f64>>(r#"{"a": "x"}"#).is_err());
        assert!(serde_json::from_str::<OrderedMap<f64>>("[1]").is_err());
    }
}
