//! `EditRequest`: the file a Claude Code tool call is about to change, read
//! from the JSON a `PreToolUse` hook gets on stdin:
//!
//! ```json
//! {"session_id": "...", "cwd": "/project", "hook_event_name": "PreToolUse",
//!  "tool_name": "Edit", "tool_input": {"file_path": "/project/src/a.py", ...}}
//! ```
//!
//! `Edit`, `Write` and `MultiEdit` name the file in `tool_input.file_path`
//! (absolute); `NotebookEdit` in `tool_input.notebook_path`.

use std::path::PathBuf;

use serde_json::Value;

/// Tools that change a file, and the `tool_input` field naming it.
const EDIT_TOOLS: [(&str, &str); 4] = [
    ("Edit", "file_path"),
    ("Write", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// A file a tool call is about to change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditRequest {
    /// The tool (`Edit`, `Write`, ...).
    pub tool: String,
    /// The file, as the tool call names it.
    pub file: String,
    /// The session's working directory, when given (relative file names
    /// are taken from there).
    pub cwd: Option<PathBuf>,
}

impl EditRequest {
    /// Reads the hook input. `Ok(None)` for a tool call that edits no file
    /// (another tool); `Err` with what is wrong for input that is not a
    /// hook event at all.
    pub fn parse(input: &[u8]) -> Result<Option<EditRequest>, String> {
        let value: Value =
            serde_json::from_slice(input).map_err(|e| format!("hook input is not JSON: {e}"))?;
        let Some(tool) = value.get("tool_name").and_then(Value::as_str) else {
            return Err("hook input has no tool_name".into());
        };
        let Some((_, field)) = EDIT_TOOLS.iter().find(|(name, _)| *name == tool) else {
            return Ok(None);
        };
        let file = value
            .get("tool_input")
            .and_then(|i| i.get(field))
            .and_then(Value::as_str)
            .filter(|f| !f.is_empty())
            .ok_or_else(|| format!("{tool} hook input has no tool_input.{field}"))?;
        let cwd = value
            .get("cwd")
            .and_then(Value::as_str)
            .map(PathBuf::from)
            .filter(|c| c.is_absolute());
        Ok(Some(EditRequest {
            tool: tool.to_owned(),
            file: file.to_owned(),
            cwd,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_edit_write_multiedit_and_notebooks() {
        for tool in ["Edit", "Write", "MultiEdit"] {
            let input = format!(
                r#"{{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_input":{{"file_path":"/p/src/a.py","old_string":"x"}}}}"#
            );
            let req = EditRequest::parse(input.as_bytes())
                .expect("valid")
                .expect("edit");
            assert_eq!(
                (req.tool.as_str(), req.file.as_str()),
                (tool, "/p/src/a.py")
            );
            assert_eq!(req.cwd, Some(PathBuf::from("/p")));
        }
        let nb = r#"{"tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb"}}"#;
        let req = EditRequest::parse(nb.as_bytes())
            .expect("valid")
            .expect("edit");
        assert_eq!((req.file.as_str(), req.cwd), ("n.ipynb", None));
    }

    #[test]
    fn other_tools_are_not_edits() {
        let input = r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        assert_eq!(EditRequest::parse(input.as_bytes()), Ok(None));
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        for bad in [
            "",
            "nonsense",
            "[]",
            "{}",
            r#"{"tool_name": 3}"#,
            r#"{"tool_name":"Edit"}"#,
            r#"{"tool_name":"Edit","tool_input":{"file_path":7}}"#,
            r#"{"tool_name":"Write","tool_input":"x"}"#,
        ] {
            assert!(EditRequest::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
