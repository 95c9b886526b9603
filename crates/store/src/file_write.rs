//! One file a commit writes.

use git2::Oid;

use crate::objects::blob_id;

/// One file a commit writes.
#[derive(Debug, Clone)]
pub struct FileWrite {
    /// Path inside the repository, `/`-separated.
    pub path: String,
    pub(crate) content: Vec<u8>,
    /// The content's blob id, when [`FileWrite::hashed`] computed it already.
    id: Option<Oid>,
}

impl FileWrite {
    /// `content` at `path`.
    pub fn new(path: impl Into<String>, content: Vec<u8>) -> Self {
        FileWrite {
            path: path.into(),
            content,
            id: None,
        }
    }

    /// [`FileWrite::new`] with its blob id computed now, for a caller that needs the id
    /// itself (promote tells an unchanged baseline by it).
    pub fn hashed(path: impl Into<String>, content: Vec<u8>) -> Self {
        let id = Some(blob_id(&content));
        FileWrite {
            path: path.into(),
            content,
            id,
        }
    }

    /// The content.
    pub fn content(&self) -> &[u8] {
        &self.content
    }

    /// The id git gives the content as a blob.
    pub fn blob_id(&self) -> Oid {
        self.id.unwrap_or_else(|| blob_id(&self.content))
    }
}
