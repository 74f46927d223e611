//! Package archive readers (filled in by the package-artifacts work).
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    TarGz,
    TarBz2,
    Tar,
    Zip,
}

impl ArchiveFormat {
    pub fn from_path(path: &Path) -> Option<ArchiveFormat> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".tgz") || name.ends_with(".tar.gz") {
            Some(ArchiveFormat::TarGz)
        } else if name.ends_with(".tar.bz2") || name.ends_with(".tbz2") {
            Some(ArchiveFormat::TarBz2)
        } else if name.ends_with(".tar") {
            Some(ArchiveFormat::Tar)
        } else if name.ends_with(".zip") || name.ends_with(".whl") {
            Some(ArchiveFormat::Zip)
        } else {
            None
        }
    }
}
