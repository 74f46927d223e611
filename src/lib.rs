//! Canary: a local-first harm gate for agentic systems.
//!
//! The stages, one module each: [`policy`] (the harm contract), [`input`]
//! (files, diffs, batches, packages), [`precheck`] (the trained classifier),
//! [`detector`] (constrained model votes), [`coordinator`] (bands, quorum and
//! the fail-closed decision), [`report`] (the structured result), [`train`]
//! and [`eval`] (building and measuring pre-check models). The `canary`
//! binary is a thin CLI over this library ([`cli`]).

// Standard streams are written through helpers that cannot panic
// (`util::say`, the CLI's `outln!`): a closed pipe must not turn a decision
// into exit 101.
#![deny(clippy::print_stderr, clippy::print_stdout)]

pub mod cache;
pub mod cli;
pub mod config;
pub mod coordinator;
pub mod detector;
pub mod eval;
pub mod input;
pub mod policy;
pub mod precheck;
pub mod report;
/// The source hash the cache keys on, as build.rs computes it (it includes
/// this file); here only for the test that checks the embedded value.
#[cfg(test)]
mod source_hash;
pub mod train;
pub mod util;
