//! `UrlFiles`: the two files that hand the dashboard's URL, secret
//! included, to its person and to nobody else: `.swarm/dashboard.url` (the
//! URL on one line, for scripts and for a later look) and
//! `.swarm/dashboard-open.html` (a page that sends the browser on to it,
//! so that the secret never appears in the opener's arguments, which
//! every account can read in `ps`). Both are 0600 in the 0700 `.swarm/`,
//! appear whole (a temp file renamed into place, which replaces a
//! symbolic link rather than following it) and go when the dashboard
//! stops.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use swarm_core::{Paths, ensure_private_dir};

use super::error::DashboardError;

/// The URL file's name under `.swarm/`.
const URL_FILE: &str = "dashboard.url";

/// The redirect page's name under `.swarm/`.
const OPEN_FILE: &str = "dashboard-open.html";

/// The files of one run.
#[derive(Debug)]
pub struct UrlFiles {
    url_file: PathBuf,
    open_file: PathBuf,
    url_text: String,
    open_text: String,
}

impl UrlFiles {
    /// Writes both files for `url` into the project's `.swarm/`.
    pub fn write(paths: &Paths, url: &str) -> Result<UrlFiles, DashboardError> {
        let dir = paths.swarm_dir();
        let files = UrlFiles {
            url_file: dir.join(URL_FILE),
            open_file: dir.join(OPEN_FILE),
            url_text: format!("{url}\n"),
            open_text: redirect_page(url),
        };
        ensure_private_dir(&dir).map_err(|source| DashboardError::UrlFile {
            path: dir.clone(),
            source,
        })?;
        write_private(&dir, &files.url_file, &files.url_text)?;
        write_private(&dir, &files.open_file, &files.open_text)?;
        Ok(files)
    }

    /// Where the URL is kept.
    pub fn url_file(&self) -> &Path {
        &self.url_file
    }

    /// The page to hand a browser: it goes on to the URL.
    pub fn open_page(&self) -> &Path {
        &self.open_file
    }

    /// Removes both files, unless another dashboard of the project has
    /// written its own since (then they are its).
    pub fn remove(self) {
        for (path, text) in [
            (&self.url_file, &self.url_text),
            (&self.open_file, &self.open_text),
        ] {
            if std::fs::read_to_string(path).is_ok_and(|now| now == *text) {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Writes `text` to `path` as a new 0600 file of `dir`, renamed into
/// place.
fn write_private(dir: &Path, path: &Path, text: &str) -> Result<(), DashboardError> {
    let fail = |source: io::Error| DashboardError::UrlFile {
        path: path.to_owned(),
        source,
    };
    // tempfile creates its files 0600.
    let mut temp = tempfile::Builder::new()
        .prefix(".swarm-tmp-")
        .tempfile_in(dir)
        .map_err(fail)?;
    temp.write_all(text.as_bytes())
        .and_then(|()| temp.as_file().sync_all())
        .map_err(fail)?;
    temp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// A page that sends its browser on to `url` at once (no script: a meta
/// refresh, with a link for a browser that does not follow it).
fn redirect_page(url: &str) -> String {
    let url = escape(url);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\">\n<title>swarm dashboard</title>\n\
         </head>\n<body>\n<p>Opening the <a href=\"{url}\">swarm dashboard</a>.</p>\n</body>\n</html>\n"
    )
}

/// `text` safe inside an HTML attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn both_files_are_private_and_go_with_the_run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let paths = Paths::new(dir.path());
        let url = "http://127.0.0.1:8080/?token=abc&x=\"y\"";
        let files = UrlFiles::write(&paths, url).expect("write");
        for path in [files.url_file(), files.open_page()] {
            let mode = std::fs::metadata(path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{}", path.display());
        }
        assert_eq!(
            std::fs::read_to_string(files.url_file()).expect("read"),
            format!("{url}\n")
        );
        let page = std::fs::read_to_string(files.open_page()).expect("read");
        assert!(
            page.contains("content=\"0;url=http://127.0.0.1:8080/?token=abc&amp;x=&quot;y&quot;\""),
            "{page}"
        );
        // Another run's files are left alone.
        let url_file = files.url_file().to_owned();
        let second = UrlFiles::write(&paths, "http://127.0.0.1:9/?token=def").expect("write");
        files.remove();
        assert!(url_file.exists());
        second.remove();
        assert!(!url_file.exists());
        assert!(!paths.swarm_dir().join(OPEN_FILE).exists());
    }
}
