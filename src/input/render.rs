//! Package rendering (filled in by the package-artifacts work).
use std::path::Path;

use super::Input;
use crate::config::Limits;

pub fn render_package(_base: Option<&Path>, path: &Path, _limits: &Limits) -> Input {
    Input::failed(None, &path.display().to_string(), &[], "package rendering is not available in this build".into())
}

/// A directory of archives to scan one by one, rather than an unpacked package.
pub fn is_collection_dir(dir: &Path) -> bool {
    let markers = ["setup.py", "setup.cfg", "pyproject.toml", "package.json", "PKG-INFO"];
    if markers.iter().any(|m| dir.join(m).exists()) {
        return false;
    }
    std::fs::read_dir(dir)
        .map(|rd| rd.flatten().any(|e| super::archive::ArchiveFormat::from_path(&e.path()).is_some()))
        .unwrap_or(false)
}
