//! docs/guide/mcp.md's table of tools against the tools `swarm mcp`
//! lists to a client: the same names, each with the first sentence of
//! the server's own description.

use crate::harness::mcp::{connect, runtime, swarm_of};
use crate::harness::{Project, TmuxServer};

/// The first sentence of `description`.
fn first_sentence(description: &str) -> &str {
    match description.find(". ") {
        Some(end) => &description[..=end],
        None => description,
    }
}

/// The rows `| `name` | description |` of the table under "## Tools".
fn documented() -> Vec<(String, String)> {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/mcp.md"),
    )
    .expect("docs/guide/mcp.md");
    let part = &page[page.find("\n## Tools\n").expect("a Tools section")..];
    part.lines()
        .skip_while(|l| !l.starts_with("| `"))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").collect();
            let [name, what] = cells[..] else { return None };
            Some((
                name.trim().trim_matches('`').to_owned(),
                what.trim().to_owned(),
            ))
        })
        .collect()
}

#[test]
fn the_guides_tools_table_is_the_servers_list() {
    let server = TmuxServer::start();
    let project = Project::new();
    let panes = swarm_of(&server, &project, 1);
    let listed: Vec<(String, String)> = runtime().block_on(async {
        let (s, _) = connect(&server, &project, &panes[0]).await;
        let tools = s.list_all_tools().await.expect("tools/list");
        tools
            .iter()
            .map(|t| {
                let description = t.description.as_deref().unwrap_or_default();
                (t.name.to_string(), first_sentence(description).to_owned())
            })
            .collect()
    });
    if documented() != listed {
        let mut table = String::from("| tool | what it does |\n| --- | --- |\n");
        for (name, what) in &listed {
            table.push_str(&format!("| `{name}` | {what} |\n"));
        }
        panic!("docs/guide/mcp.md's table under \"## Tools\" should be:\n\n{table}");
    }
}
