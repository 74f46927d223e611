//! Package artifact tests (see the package-artifacts work).
