//! Scene JSON read into a `serde_json::Value` with every object's keys
//! unique: serde_json keeps the last of a repeated key silently, so a scene
//! with `"dt"` twice, or two handles of one name, would run with whichever
//! came last. A repeated key is an error at its line and column.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// `text` as a JSON value, refusing repeated keys.
pub fn parse(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Strict, E> {
        Ok(Strict(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Strict, E> {
        Ok(Strict(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Strict, E> {
        Ok(Strict(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }

    fn visit_str<E>(self, v: &str) -> Result<Strict, E> {
        Ok(Strict(Value::String(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Strict(Value::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key `{key}` appears twice in one object: keep one"
                )));
            }
            let Strict(v) = map.next_value()?;
            object.insert(key, v);
        }
        Ok(Strict(Value::Object(object)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_refused_where_it_stands() {
        let text = "{\n  \"a\": {\"b\": 1, \"c\": [1, 2.5, null, true, \"x\"]},\n  \"d\": {\"b\": 1, \"b\": 2}\n}";
        let e = parse(text).unwrap_err();
        assert!(e.to_string().contains("`b` appears twice") && e.line() == 3, "{e}");
        let ok = parse("{\"a\": {\"b\": 1, \"c\": [1, 2.5, null, true, \"x\"]}, \"d\": {\"b\": 1}}").unwrap();
        assert_eq!(ok["a"]["c"], serde_json::json!([1, 2.5, null, true, "x"]));
    }
}
