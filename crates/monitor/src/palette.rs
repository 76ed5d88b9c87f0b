//! The colour of each message type, shared by the live view and the
//! coloured plain stream (docs/guide/dashboard.md, The monitor: BLOCKED red, QUESTION and ACK yellow,
//! COMPLETED green, INFO and REVIEW-REQUEST blue, CHALLENGE magenta, the
//! rest white).

/// A message type's colour, in the bright variants the original used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeColor {
    /// BLOCKED.
    Red,
    /// QUESTION, ACK.
    Yellow,
    /// COMPLETED.
    Green,
    /// INFO, REVIEW-REQUEST.
    Blue,
    /// CHALLENGE.
    Magenta,
    /// Every other type.
    White,
}

/// The colour of a wire type name.
pub fn type_color(msg_type: &str) -> TypeColor {
    match msg_type {
        "BLOCKED" => TypeColor::Red,
        "QUESTION" | "ACK" => TypeColor::Yellow,
        "COMPLETED" => TypeColor::Green,
        "INFO" | "REVIEW-REQUEST" => TypeColor::Blue,
        "CHALLENGE" => TypeColor::Magenta,
        _ => TypeColor::White,
    }
}
