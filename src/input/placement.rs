//! Where pip writes a wheel's files, and which of those places change what
//! every later Python, pip or environment activation does.
//!
//! pip installs a wheel's members into site-packages, except those under a
//! top-level folder named `*.data`, which go to the directory of the scheme
//! named next: `NAME.data/scripts/` to the environment's commands (`bin`,
//! `Scripts` on Windows), `NAME.data/data/` to its prefix (the environment's
//! own folder), `headers`, and `purelib` or `platlib` (site-packages). So a
//! wheel with no code at all can replace pip's configuration for the
//! environment (`NAME.data/data/pip.conf`: every later install there takes
//! its index from it), replace the environment's `pip` or `python` command,
//! overwrite another distribution's files ([`owner_of`]: a CA bundle at
//! `certifi/cacert.pem`), or add a file that Python runs at every start (a
//! `.pth` file's import lines, `sitecustomize`), or a file another program
//! runs or obeys from the prefix by itself: conda's activation scripts and
//! records, Jupyter's and IPython's configuration, npm's global `npmrc`,
//! fish's start-up scripts and functions, shell completions, systemd's
//! units and udev rules, D-Bus services (`runs_from_prefix`,
//! `configures_prefix`: a `--user` install writes the prefix's `share/`
//! into `~/.local/share`, a system-wide one into `/usr/local`, where each
//! of those programs looks). The text every reader
//! judges shows such a file
//! under its archive path and judges what it says, not what it replaces or
//! when it runs; [`super::render`] turns what this module finds into notes
//! that keep the package from being cleared.
//!
//! An sdist gets its wheel built at install, and its manifests say where
//! the files go: setuptools' `data_files` with a folder relative to the
//! environment's (`("", ["pip.conf"])`), modules and build steps that put
//! a `.pth` file or `sitecustomize` where Python's `site` runs it, and
//! console scripts, for each of which pip writes a launcher among the
//! environment's commands. [`in_manifest`] finds the lines of `setup.py`,
//! `setup.cfg` and `pyproject.toml` that name the environment's
//! configuration files or a start-up file, or declare a console script
//! under one of its commands' names. A manifest is
//! read as text, so such a line is not proof of a placement, only reason
//! enough that the pre-check alone does not allow the package.
//!
//! This module only ever adds reasons to block. It must never be the reason
//! a package is allowed, and it knows nothing of how a package is scored.

use std::sync::OnceLock;

use regex::bytes::Regex;

use super::code::Code;
use super::fetched::CfgValues;

/// What installing one member of a wheel does besides adding a file of the
/// package's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Placement {
    /// The member replaces the environment's configuration or one of its
    /// own commands: nothing a package needs to do, and what it replaces is
    /// not in the text any reader judges.
    Replaces(&'static str),
    /// The member runs by itself, at every Python start or environment
    /// activation, not when the package is used: its text is readable, but
    /// not as code that runs everywhere.
    RunsByItself(&'static str),
}

impl Placement {
    /// What the member becomes, in report wording.
    pub fn what(self) -> &'static str {
        match self {
            Placement::Replaces(what) | Placement::RunsByItself(what) => what,
        }
    }
}

/// Where pip writes a wheel member (`RecordPath` in pip's `wheel.py`).
#[derive(Debug, PartialEq, Eq)]
enum Destination<'a> {
    /// A path under site-packages.
    SitePackages(&'a str),
    /// A file in the environment's commands folder.
    Scripts(&'a str),
    /// A path under the environment's prefix.
    Prefix(&'a str),
    /// A C header, or a path pip refuses (an unknown scheme).
    Elsewhere,
}

/// pip's mapping: a member whose first folder ends with `.data` (exactly,
/// as pip compares) goes to the scheme its second folder names; the rest
/// to site-packages.
fn destination(path: &str) -> Destination<'_> {
    let Some((first, rest)) = path.split_once('/') else {
        return Destination::SitePackages(path);
    };
    if !first.ends_with(".data") {
        return Destination::SitePackages(path);
    }
    let Some((scheme, sub)) = rest.split_once('/') else {
        return Destination::Elsewhere;
    };
    match scheme {
        "purelib" | "platlib" => Destination::SitePackages(sub),
        "scripts" => Destination::Scripts(sub),
        "data" => Destination::Prefix(sub),
        _ => Destination::Elsewhere,
    }
}

/// Whether pip installs the wheel member at `path` under the environment's
/// `share/` folder (`NAME.data/data/share/…`): data for other programs
/// (JupyterLab's browser bundles, man pages, icons), which installing,
/// importing or building the package never runs.
pub fn in_shared_data(path: &str) -> bool {
    match destination(path) {
        Destination::Prefix(p) => p
            .split_once('/')
            .is_some_and(|(top, rest)| top.eq_ignore_ascii_case("share") && !rest.is_empty()),
        _ => false,
    }
}

/// What installing the wheel member at `path` (with content `data`) does
/// besides adding a file of the package's own, if anything. Names are
/// compared without case: on Windows and macOS `Pip.conf` is `pip.conf`.
pub fn in_wheel(path: &str, data: &[u8]) -> Option<Placement> {
    let entry_points = path
        .strip_suffix(".dist-info/entry_points.txt")
        .filter(|dist| !dist.contains('/'));
    if let Some(dist) = entry_points {
        return launches_command_over(dist, data).map(Placement::Replaces);
    }
    match destination(path) {
        Destination::SitePackages(p) => in_site_packages(&p.to_ascii_lowercase(), data),
        Destination::Scripts(name) => command_over(&name.to_ascii_lowercase()),
        Destination::Prefix(p) => {
            let p = p.to_ascii_lowercase();
            in_prefix(&p, data).or_else(|| {
                let dist = path.split('/').next()?.strip_suffix(".data")?;
                cmake_package_of_another(&p, &dist.to_ascii_lowercase())
                    .then_some(Placement::RunsByItself(CMAKE_PACKAGE))
            })
        }
        Destination::Elsewhere => None,
    }
}

/// What a CMake package configuration of another project does once
/// installed.
const CMAKE_PACKAGE: &str = "a CMake package configuration for another project, which every CMake build run from the environment loads and runs when it looks for that project (find_package)";

/// Whether a path (lower case) under the prefix is in the CMake package
/// folder of a project other than the wheel's distribution `dist` (lower
/// case, from its `NAME-VERSION.data` folder): `lib/cmake/NAME*/`,
/// `lib64/cmake/NAME*/` or `share/cmake/NAME*/`. CMake's `find_package`
/// takes the parent of each `bin` folder on the PATH as a prefix, so an
/// activated environment is one: a `lib/cmake/Eigen3/Eigen3Config.cmake`
/// there ran as a project's `find_package(Eigen3 CONFIG)` looked for it
/// (CMake 4.4, session 45). A distribution's own configuration
/// (pybind11-global's `share/cmake/pybind11/`) is what the folder is for.
fn cmake_package_of_another(p: &str, dist: &str) -> bool {
    let Some(rest) = ["lib/cmake/", "lib64/cmake/", "share/cmake/"]
        .iter()
        .find_map(|dir| p.strip_prefix(dir))
    else {
        return false;
    };
    let Some((name, _)) = rest.split_once('/') else {
        return false;
    };
    let norm = |s: &str| -> String { s.chars().filter(|c| c.is_ascii_alphanumeric()).collect() };
    let (name, dist) = (norm(name), norm(dist.split('-').next().unwrap_or(dist)));
    !name.is_empty() && !name.starts_with(&dist) && !dist.starts_with(&name)
}

/// What a file in the environment's commands folder under one of its own
/// commands' names replaces.
const COMMAND: &str = "one of the environment's own commands (python, pip, activate)";

/// What a console script named as one of the environment's own commands
/// replaces: pip writes a launcher for each into the commands folder.
const LAUNCHER: &str = "a launcher pip writes for a console script named as one of the environment's own commands (python, pip, activate)";

/// What a file in the commands folder named as a system's command
/// ([`system_command`]) stands in for.
const SYSTEM_COMMAND: &str = "a command the system provides (sudo, ssh, git, a shell, ...), which it runs in place of for whoever puts the environment's commands first on the PATH: activating it, or every login shell after a pip install --user";

/// The same for a console script's launcher.
const SYSTEM_LAUNCHER: &str = "a launcher pip writes for a console script named as a command the system provides (sudo, ssh, git, a shell, ...), which it runs in place of for whoever puts the environment's commands first on the PATH: activating it, or every login shell after a pip install --user";

/// What a file named `name` (lower case) in the environment's commands
/// folder replaces, if anything: one of the environment's own commands
/// ([`environment_command`]) or one the system provides
/// ([`system_command`]).
fn command_over(name: &str) -> Option<Placement> {
    if environment_command(name) {
        Some(Placement::Replaces(COMMAND))
    } else if system_command(name) {
        Some(Placement::Replaces(SYSTEM_COMMAND))
    } else {
        None
    }
}

/// Whether a command name (lower case, with `.exe` as pip's Windows
/// launchers have it) is one the system provides that no Python package
/// needs to name its own: a shell, what grants privileges (`sudo`, `su`,
/// `doas`, `pkexec`, `runas`) or holds credentials (`ssh` and its tools,
/// `gpg`, `git`, `passwd`, `kinit`), and a few commands typed all day
/// (`ls`, `cat`, `cp`, `mv`, `rm`, `env`, `which`, `curl`, `wget`). A
/// `sudo` first on the PATH reads the password typed to it: `~/.local/bin`,
/// where `pip install --user` writes commands, comes first in Debian's and
/// Ubuntu's default `~/.profile`. Commands that packages on PyPI do provide
/// (`node`, `cmake`, `ninja`, `aws`) are not in the list.
fn system_command(name: &str) -> bool {
    let name = name.strip_suffix(".exe").unwrap_or(name);
    matches!(
        name,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "csh"
            | "tcsh"
            | "fish"
            | "pwsh"
            | "powershell"
            | "cmd"
            | "sudo"
            | "su"
            | "doas"
            | "pkexec"
            | "runas"
            | "ssh"
            | "scp"
            | "sftp"
            | "ssh-add"
            | "ssh-agent"
            | "ssh-keygen"
            | "gpg"
            | "gpg2"
            | "gpg-agent"
            | "git"
            | "passwd"
            | "kinit"
            | "ls"
            | "cat"
            | "cp"
            | "mv"
            | "rm"
            | "env"
            | "which"
            | "curl"
            | "wget"
    )
}

/// What the first console or GUI script a wheel's `entry_points.txt` (of
/// the distribution `dist`, as its `.dist-info` folder names it) declares
/// under one of the environment's own commands' names, or a system's
/// ([`command_over`]), makes pip's launcher replace. pip's own wheel
/// declares `pip`, `pip3` and `pip3.N`: installing a distribution named pip
/// is replacing pip, in plain sight (pip installs a wheel only when its
/// `.dist-info` folder's name is the one its file name gives).
fn launches_command_over(dist: &str, data: &[u8]) -> Option<&'static str> {
    let name = dist.split('-').next().unwrap_or(dist).to_ascii_lowercase();
    for (command, _, _) in ini_scripts(&String::from_utf8_lossy(data)) {
        let pips_own = name == "pip" && command.starts_with("pip");
        if environment_command(&command) && !pips_own {
            return Some(LAUNCHER);
        }
        if system_command(&command) {
            return Some(SYSTEM_LAUNCHER);
        }
    }
    None
}

/// The console and GUI scripts an entry-points text declares (a wheel's
/// `entry_points.txt`, setuptools' `entry_points` option or the file it
/// names), as (name in lower case, target, 1-based line).
///
/// A group as `importlib.metadata` reads it (pip's reader on Python 3.11
/// and later): a line that starts with `[` and ends with `]`, every
/// bracket at either end stripped, so `[[console_scripts]]` is that group
/// (a wheel declaring `pip` under it was allowed before session 42).
/// Spaces are trimmed too, as `pkg_resources` (pip's reader before) trims
/// them. Every other line of the group is an entry point, indented or
/// not: `importlib.metadata` reads lines, and `configparser`, which
/// setuptools reads a file named by `[tool.setuptools.dynamic]` with,
/// joins an indented line to the one before, so reading each line names
/// what either reader finds.
fn ini_scripts(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut scripts = false;
    for (i, line) in text.lines().map(str::trim).enumerate() {
        if line.starts_with('[') && line.ends_with(']') {
            let group = line.trim_matches(['[', ']']).trim().to_ascii_lowercase();
            scripts = group == "console_scripts" || group == "gui_scripts";
        } else if let Some((command, target)) = line.split_once('=').filter(|_| scripts) {
            let command = command.trim().to_ascii_lowercase();
            out.push((command, target.trim().to_string(), i + 1));
        }
    }
    out
}

/// What a conda configuration file in the prefix becomes.
const CONDA_CONFIG: &str =
    "conda's configuration for the environment, which names the channels later installs there take packages from";

/// What a path (lower case) under the prefix is when another tool reads
/// it as its configuration for the prefix:
///
/// - conda's record of the environment, `conda-meta/` (the installed
///   packages' records, and `state`, whose `env_vars` every activation
///   exports) or `etc/conda/env_vars.d/` (variables a package sets at
///   every activation), as conda's and mamba's sources name them
///   (`PREFIX_STATE_FILE`, `PACKAGE_ENV_VARS_DIR`). A variable set there
///   (`LD_PRELOAD`, `PYTHONSTARTUP`, `PIP_INDEX_URL`) runs or fetches
///   code the text does not hold.
/// - npm's global configuration, `etc/npmrc` under npm's prefix: the
///   prefix a system-wide install shares with Node where both live in
///   `/usr/local` (the official Node images and tarballs), or a nodeenv
///   environment. Its `node-options` ran a file in every npm script
///   (npm 11.19 with `npm_config_prefix` set to a folder holding
///   `etc/npmrc`, session 45); its `registry` names where every install
///   comes from.
/// - the desktop's default applications, `share/applications/mimeapps.list`
///   (or a desktop's `NAME-mimeapps.list`, or the older `defaults.list`):
///   GLib reads `~/.local/share/applications` among its lists, and with one
///   there naming a `.desktop` file beside it for `x-scheme-handler/https`,
///   `gio open https://…` ran that file's command (GLib 2.74, session 45):
///   every link a desktop program opens.
fn configures_prefix(p: &str) -> Option<&'static str> {
    if let Some(name) = p.strip_prefix("share/applications/") {
        if name == "mimeapps.list" || name.ends_with("-mimeapps.list") || name == "defaults.list" {
            return Some("the desktop's list of default applications, which picks the program that opens every link or file of a type, once installed for the user or the system");
        }
    }
    if p.starts_with("conda-meta/") || p.starts_with("etc/conda/env_vars.d/") {
        return Some("conda's record of the environment, whose packages it lists and whose variables every activation sets");
    }
    (p == "etc/npmrc").then_some(
        "npm's global configuration where Node shares the prefix, whose registry every install uses and whose node-options every npm script runs with",
    )
}

/// A path (lower case) under the environment's prefix.
fn in_prefix(p: &str, data: &[u8]) -> Option<Placement> {
    match p {
        "pip.conf" | "pip.ini" => {
            return Some(Placement::Replaces(
                "pip's configuration for the environment, where every later install there finds its index and trusted hosts",
            ))
        }
        "pyvenv.cfg" => {
            return Some(Placement::Replaces(
                "the environment's settings, which say what Python it runs and whether it sees the system's packages",
            ))
        }
        ".condarc" | "condarc" => {
            return Some(Placement::Replaces(
                CONDA_CONFIG,
            ))
        }
        _ => {}
    }
    if p.starts_with("condarc.d/") {
        return Some(Placement::Replaces(CONDA_CONFIG));
    }
    if let Some(what) = configures_prefix(p) {
        return Some(Placement::Replaces(what));
    }
    if let Some(name) = p
        .strip_prefix("bin/")
        .or_else(|| p.strip_prefix("scripts/"))
    {
        return command_over(name);
    }
    if let Some(what) = runs_from_prefix(p) {
        return Some(Placement::RunsByItself(what));
    }
    if standard_library(p) {
        return Some(Placement::Replaces(STANDARD_LIBRARY));
    }
    in_site_packages(site_packages_in_prefix(p)?, data)
}

/// What a file in Python's standard library folder becomes.
const STANDARD_LIBRARY: &str = "Python's standard library where pip installs into Python's own installation (the official Docker images, pyenv, python.org's installers), whose modules every program imports";

/// Whether a manifest's line (lower case) names Python's standard library
/// folder under the prefix: `lib/python3.11` itself, or a path in it
/// that is not `site-packages` or `dist-packages`
/// ([`standard_library`]).
fn names_standard_library(line: &[u8]) -> bool {
    memchr::memmem::find_iter(line, b"lib/python").any(|at| {
        // A data mapping's folder is relative to the prefix: `/usr/lib/
        // python3.11` in a comment or a path of the build machine is not one.
        if at > 0 && (line[at - 1].is_ascii_alphanumeric() || b"_/.-".contains(&line[at - 1])) {
            return false;
        }
        // The folder's name runs to the first byte a name does not hold.
        let path = &line[at + b"lib/".len()..];
        let end = path
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || b"._".contains(b)))
            .unwrap_or(path.len());
        let dir = std::str::from_utf8(&path[..end]).unwrap_or("");
        if !versioned_python(dir) {
            return false;
        }
        match path.get(end) {
            Some(b'/') => {
                let tail = &path[end + 1..];
                !tail.starts_with(b"site-packages") && !tail.starts_with(b"dist-packages")
            }
            Some(b'-') => false,
            _ => true,
        }
    })
}

/// Whether a path (lower case) under the prefix is in Python's standard
/// library folder when the prefix is Python's own installation, as it is
/// for `pip install` outside a virtual environment in the official
/// Docker images (`/usr/local`), pyenv and python.org's installers: the
/// data scheme's folder is `sys.prefix`, and the standard library is its
/// `lib/python3.X/` (`Lib/` and `DLLs/` on Windows). A wheel's
/// `NAME.data/data/lib/python3.11/json/__init__.py` replaced the
/// standard library's `json`, and `import json` ran it; a `site.py` there
/// is what every start runs (pip in a copy of pyenv's Python 3.11,
/// session 45; the shipped gate allowed both). In a virtual environment
/// the same files land in a folder Python does not read. site-packages
/// and Debian's dist-packages are [`site_packages_in_prefix`]'s.
fn standard_library(p: &str) -> bool {
    if p.starts_with("dlls/") {
        return true;
    }
    if versioned_standard_library(p) {
        return true;
    }
    let Some(rest) = p.strip_prefix("lib/").or_else(|| p.strip_prefix("lib64/")) else {
        return false;
    };
    // Windows' `Lib/`: a module or package of Python's own there (POSIX's
    // `lib/python3.X/` is the function above's).
    !rest.starts_with("site-packages/")
        && !rest.starts_with("python")
        && (rest.ends_with(".py") || rest.ends_with(".pyd") || rest.ends_with(".pth"))
}

/// Whether a folder name (lower case) is a Python's library folder:
/// `python3.12`, `python3`, a free-threaded build's `python3.13t`.
fn versioned_python(dir: &str) -> bool {
    dir.strip_prefix("python").is_some_and(|v| {
        let v = v.strip_suffix('t').unwrap_or(v);
        !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    })
}

/// Whether a path (lower case) under the prefix lies in POSIX Python's
/// standard library folder, `lib/python3.X/` (`lib64/` too; `python3`, a
/// free-threaded build's `python3.13t`), outside its `site-packages` and
/// Debian's `dist-packages`.
fn versioned_standard_library(p: &str) -> bool {
    let Some(rest) = p.strip_prefix("lib/").or_else(|| p.strip_prefix("lib64/")) else {
        return false;
    };
    let Some((dir, tail)) = rest.split_once('/') else {
        return false;
    };
    versioned_python(dir)
        && !tail.is_empty()
        && !tail.starts_with("site-packages/")
        && !tail.starts_with("dist-packages/")
}

/// What a file at a path (lower case) under the prefix does, when a tool
/// or a shell runs it from there by itself: conda's activation scripts,
/// Jupyter's and IPython's Python configuration, fish's start-up scripts
/// and the functions it loads by a command's name, and shell completions
/// ([`shell_completion`]). Wheels place files there through their `data`
/// folder, and a source package through a build's data mapping
/// ([`startup_or_config_file`]).
fn runs_from_prefix(p: &str) -> Option<&'static str> {
    if p.starts_with("etc/conda/activate.d/") || p.starts_with("etc/conda/deactivate.d/") {
        return Some("a script conda runs at every activation of the environment");
    }
    // Jupyter and IPython read the environment's `etc/jupyter` and
    // `etc/ipython` at every start, and a `*.py` there is configuration
    // they run as Python. A `*.json` in the folder itself is their whole
    // configuration too, which names code and commands they run: IPython
    // ran `InteractiveShellApp.exec_lines` from `etc/ipython/
    // ipython_config.json`, and Jupyter Server the `ServerApp.browser`
    // command of `etc/jupyter/jupyter_server_config.json` as it started
    // (IPython 9.18, jupyter_server 2.21, session 45). Packages enable their
    // extensions with JSON in the `*.d` folders instead, which Jupyter
    // reads only for the extensions' names.
    if let Some(rest) = p
        .strip_prefix("etc/jupyter/")
        .or_else(|| p.strip_prefix("etc/ipython/"))
    {
        if rest.ends_with(".py") || (rest.ends_with(".json") && !rest.contains('/')) {
            return Some("a configuration file Jupyter or IPython runs as Python, or reads for the code and commands it runs (IPython's exec_lines, Jupyter's browser command), at every start");
        }
    }
    // fish sources every `vendor_conf.d` script of the `share/` folders it
    // reads (the user's and the system's, which a `--user` or system-wide
    // install writes into) at every start.
    if p.starts_with("share/fish/vendor_conf.d/") {
        return Some(FISH_CONF);
    }
    if let Some(name) = p.strip_prefix("share/fish/vendor_functions.d/") {
        return fish_function_over(name).then_some(FISH_FUNCTION);
    }
    // systemd's user manager reads `~/.local/share/systemd/user` (where a
    // `--user` install writes a wheel's `share/`) and
    // `/usr/local/share/systemd/user` before the units the system ships,
    // and the system manager `/usr/local/lib/systemd/system` before
    // `/lib/systemd/system` (`systemd-analyze unit-paths`, systemd 252,
    // session 45): a unit there by a name the system starts (`dbus`,
    // `pipewire`, `gpg-agent`, `ssh`, `cron`) runs in its place at every
    // login or boot, as does a drop-in (`dbus.service.d/x.conf`) or a
    // `.wants/` entry beside it. Which names the machine starts cannot be
    // read from the package, so every file there counts. systemd 252 and
    // its tools read the rest of `/usr/local/lib` (a system-wide install's
    // prefix) as well, as their binaries' search paths show: generators
    // and presets under `systemd/`, and `tmpfiles.d` (files written as
    // root at boot), `sysctl.d`, `modules-load.d`, `binfmt.d` (the
    // interpreter the kernel runs a binary format with), `environment.d`
    // (the user session's variables) and udev's `rules.d` (commands run as
    // root on device events).
    const SYSTEMD_DIRS: &[&str] = &[
        "share/systemd/user/",
        "lib/systemd/",
        "lib/tmpfiles.d/",
        "lib/sysctl.d/",
        "lib/modules-load.d/",
        "lib/binfmt.d/",
        "lib/environment.d/",
        "lib/udev/rules.d/",
    ];
    // A file in one of the folders, not the folder itself.
    let in_any = |dirs: &[&str]| dirs.iter().any(|d| p.len() > d.len() && p.starts_with(d));
    if in_any(SYSTEMD_DIRS) {
        return Some(SYSTEMD_UNIT);
    }
    // The session bus runs the `Exec` of a service file in
    // `~/.local/share/dbus-1/services` when a program asks for the name it
    // declares and nothing owns it: one for `org.freedesktop.secrets`
    // ran at the first request for the secret store (dbus-daemon 1.14,
    // session 45), the name every keyring client asks for with the
    // passwords. The system bus reads `system-services` the same way.
    if in_any(&["share/dbus-1/services/", "share/dbus-1/system-services/"]) {
        return Some(DBUS_SERVICE);
    }
    shell_completion(p)
}

/// What a systemd unit file in the prefix's unit folders does once installed.
const SYSTEMD_UNIT: &str = "a systemd unit, drop-in, generator or configuration (tmpfiles.d, sysctl.d, binfmt.d, environment.d, udev rules) that systemd runs or applies at every login, boot or device event, beside or in place of the system's own, once installed for the user or the system";

/// What a D-Bus service file in the prefix's service folders does once
/// installed.
const DBUS_SERVICE: &str = "a D-Bus service file whose command the bus runs whenever a program asks for the name it declares (the secret store, the notification daemon, ...), once installed for the user or the system";

/// What a script in fish's `vendor_conf.d` does once installed.
const FISH_CONF: &str =
    "a script the fish shell runs at every start, once installed for the user or the system";

/// What a fish function file named for another command does once installed.
const FISH_FUNCTION: &str = "a fish function file that runs in place of a command the system or the environment provides, or of one of fish's own functions (cd, ls, fish_prompt, ...), whenever fish calls it, once installed for the user or the system";

/// Whether a file name (lower case) in fish's `vendor_functions.d` defines
/// a function over a command the system or the environment provides or
/// over one of fish's own. fish 3.6 loads `NAME.fish` from the first
/// folder of its function path that holds it when `NAME` is first
/// called, a function comes before a command of that name, and the
/// `vendor_functions.d` of `~/.local/share/fish` (where `pip install
/// --user` writes a wheel's `share/`) comes before fish's own functions:
/// `ls.fish`, `sudo.fish`, `cd.fish` and `fish_prompt.fish` installed
/// there each ran (checked, session 45). A function for the package's
/// own command is what the folder is for.
fn fish_function_over(name: &str) -> bool {
    // fish 3.6's own functions that are not `fish_*` or `__fish_*`.
    const FISH_OWN: &[&str] = &[
        "n_",
        "_validate_int",
        "__terlar_git_prompt",
        "abbr",
        "alias",
        "cd",
        "cdh",
        "contains_seq",
        "diff",
        "dirh",
        "dirs",
        "down-or-search",
        "edit_command_buffer",
        "export",
        "funced",
        "funcsave",
        "grep",
        "help",
        "history",
        "isatty",
        "la",
        "ll",
        "ls",
        "man",
        "nextd",
        "open",
        "popd",
        "prevd",
        "prompt_hostname",
        "prompt_login",
        "prompt_pwd",
        "psub",
        "pushd",
        "realpath",
        "seq",
        "setenv",
        "suspend",
        "trap",
        "umask",
        "up-or-search",
        "vared",
    ];
    let Some(function) = name.strip_suffix(".fish").filter(|f| !f.contains('/')) else {
        return false;
    };
    function.starts_with("fish_")
        || function.starts_with("__fish")
        || FISH_OWN.contains(&function)
        || system_command(function)
        || environment_command(function)
}

/// What a shell completion script named for a command the system or the
/// environment provides does once installed.
const SHELL_COMPLETION: &str = "a completion script bash, fish or zsh runs whenever one completes a command the system or the environment provides, once installed for the user or the system";

/// zsh's own start-up functions, names no other file has: counted in a
/// source package wherever they lie ([`startup_or_config_file`]), and
/// with zsh's other functions in `share/zsh/site-functions/`
/// ([`shell_completion`]).
const ZSH_STARTUP: &[&str] = &["compinit", "compaudit", "bashcompinit", "promptinit"];

/// What a zsh function file named as one of zsh's own does once installed.
const ZSH_FUNCTION: &str = "a zsh function file that runs in place of zsh's own (compinit, promptinit, ...) at every start of a shell that loads it, once installed system-wide";

/// What a file under the prefix (lower case) does when a shell's
/// completion or function path holds it, if it runs by itself there: a
/// completion script for a command the system or the environment
/// provides ([`completes_another_s_command`]) in bash-completion's
/// `share/bash-completion/completions/`, fish's
/// `share/fish/vendor_completions.d/` or zsh's `share/zsh/site-functions/`,
/// or a zsh function file named as one of zsh's own. bash-completion 2.11
/// and fish 3.6 look in `~/.local/share` (where `pip install --user`
/// writes a wheel's `share/`) before the system's own completions, and
/// Debian's zsh 5.9 puts `/usr/local/share/zsh/site-functions` (a
/// system-wide install's) first on its `fpath`: a `git.bash`, `git.fish`
/// or `_git` there ran on completing `git`, and a `compinit` there ran in
/// place of zsh's at `compinit` (each checked, session 44).
fn shell_completion(p: &str) -> Option<&'static str> {
    const ZSH_OWN: &[&str] = &[
        "colors",
        "add-zsh-hook",
        "is-at-least",
        "vcs_info",
        "zrecompile",
        "run-help",
    ];
    if let Some(name) = p
        .strip_prefix("share/bash-completion/completions/")
        .or_else(|| p.strip_prefix("share/fish/vendor_completions.d/"))
    {
        return completes_another_s_command(name).then_some(SHELL_COMPLETION);
    }
    let name = p.strip_prefix("share/zsh/site-functions/")?;
    if ZSH_STARTUP.contains(&name) || ZSH_OWN.contains(&name) {
        return Some(ZSH_FUNCTION);
    }
    (name.starts_with('_') && completes_another_s_command(name)).then_some(SHELL_COMPLETION)
}

/// Whether a completion script's file name (lower case) is one a shell
/// loads for a command the system or the environment provides: `NAME`,
/// `NAME.bash` or `_NAME` (bash-completion), `NAME.fish` (fish), `_NAME`
/// (zsh), for `ssh`, `git`, `pip` and the rest of the command rules'
/// lists. A script for the package's own command is what such a folder
/// is for.
fn completes_another_s_command(name: &str) -> bool {
    let cmd = name
        .strip_suffix(".bash")
        .or_else(|| name.strip_suffix(".fish"))
        .unwrap_or(name);
    let cmd = cmd.strip_prefix('_').unwrap_or(cmd);
    !cmd.contains('/') && (system_command(cmd) || environment_command(cmd))
}

/// Whether a file name (lower case) is a shell's completion script for a
/// command the system provides, by the shells' own naming (`git.bash`,
/// `git.fish`, `_git`); the bare name is a command of its own
/// ([`startup_or_config_file`]).
fn completes_system_command(name: &str) -> bool {
    let cmd = name
        .strip_suffix(".bash")
        .or_else(|| name.strip_suffix(".fish"))
        .or_else(|| name.strip_prefix('_'));
    cmd.is_some_and(system_command)
}

/// A path (lower case) under the prefix as a path under site-packages,
/// when it is one: `lib/python3.12/site-packages/…` (POSIX),
/// `lib/site-packages/…` (Windows' `Lib`), or Debian's and Ubuntu's
/// `lib/python3.11/dist-packages/…` and `lib/python3/dist-packages/…`.
/// Debian's Python reads `/usr/local/lib/python3.11/dist-packages` as a
/// site folder (`site.getsitepackages()`), and its pip, installing as root,
/// writes a wheel's `data` files under `/usr/local`: a `.pth` file at
/// `NAME.data/data/lib/python3.11/dist-packages/` landed there (pip 23.0.1
/// with `--root`, session 45), where Python runs its import lines at
/// every start. `lib64/` is `lib/` too: Python's `venv` makes `lib64` a
/// link to `lib` on 64-bit Linux, so `NAME.data/data/lib64/python3.11/
/// site-packages/x.pth` landed in the environment's site-packages and ran
/// (pip in a venv of Python 3.11, session 45; the shipped gate allowed
/// it), and Fedora's platlib is `lib64/python3.X/site-packages`.
fn site_packages_in_prefix(p: &str) -> Option<&str> {
    let rest = p
        .strip_prefix("lib/")
        .or_else(|| p.strip_prefix("lib64/"))?;
    if let Some(rest) = rest.strip_prefix("site-packages/") {
        return Some(rest);
    }
    let (dir, rest) = rest.split_once('/')?;
    let rest = rest
        .strip_prefix("site-packages/")
        .or_else(|| rest.strip_prefix("dist-packages/"))?;
    dir.starts_with("python").then_some(rest)
}

/// Top-level packages of site-packages whose files belong to one
/// distribution that others must not overwrite: the installer's own code,
/// the code every build runs, and the CA bundle that requests and pip
/// trust (a wheel holding `certifi/cacert.pem` swaps the certificates
/// every later HTTPS request checks, and holds no code at all).
const OWNED: &[(&str, &str, &str)] = &[
    ("pip", "pip", "pip's own code"),
    ("certifi", "certifi", "the CA bundle requests and pip trust"),
    (
        "setuptools",
        "setuptools",
        "setuptools' own code, which builds run",
    ),
    (
        "pkg_resources",
        "setuptools",
        "setuptools' own code, which builds run",
    ),
    (
        "_distutils_hack",
        "setuptools",
        "setuptools' own code, which builds run",
    ),
    ("wheel", "wheel", "wheel's own code, which builds run"),
];

/// The distribution that owns where pip writes the wheel member at `path`,
/// and what that place holds, when it is one of [`OWNED`]'s packages, or
/// the `python3` kernelspec folder of the environment's
/// `share/jupyter/kernels/` (ipykernel's: a file written there changes the
/// command Jupyter runs to start every Python notebook's kernel).
pub fn owner_of(path: &str) -> Option<(&'static str, &'static str)> {
    let lower = path.to_ascii_lowercase();
    let p = match destination(&lower) {
        Destination::SitePackages(p) => p,
        Destination::Prefix(p) if p.starts_with("share/jupyter/kernels/python3/") => {
            return Some((
                "ipykernel",
                "the python3 kernel, whose command Jupyter runs for every Python notebook",
            ))
        }
        Destination::Prefix(p) => site_packages_in_prefix(p)?,
        Destination::Scripts(_) | Destination::Elsewhere => return None,
    };
    let (top, _) = p.split_once('/')?;
    OWNED
        .iter()
        .find(|(package, _, _)| *package == top)
        .map(|(_, owner, what)| (*owner, *what))
}

/// A path (lower case) under site-packages.
fn in_site_packages(p: &str, data: &[u8]) -> Option<Placement> {
    // `sitecustomize` and `usercustomize` are imported at every start, as
    // a module or a package.
    let module = p
        .strip_suffix("/__init__.py")
        .or_else(|| p.strip_suffix(".py"));
    if matches!(module, Some("sitecustomize" | "usercustomize")) {
        return Some(Placement::RunsByItself(
            "a module Python imports at every start",
        ));
    }
    if !p.contains('/') && p.ends_with(".pth") && pth_runs_code(data) {
        return Some(Placement::RunsByItself(
            "a .pth file whose import lines Python runs at every start",
        ));
    }
    None
}

/// What a file of a package pip builds from source (an sdist, a source
/// folder) would be if its build installed it where its name takes
/// effect, wherever it lies in the package: a `.pth` file with an
/// import line, `sitecustomize` or `usercustomize` (Python runs them at
/// every start from site-packages), or an installer's or environment's
/// configuration (in the environment's folder). [`in_manifest`] reads the
/// names a manifest gives, but a build places files by rules it cannot
/// follow: a folder (flit's `external-data`, Hatch's `shared-data`), a
/// pattern (`extra/*` in setuptools' `data-files`, `extra/*.p?h` in
/// `setup.cfg`). tomli, annotated-types and flake8 planting an import
/// `.pth` in site-packages each of those ways were allowed by the shipped
/// gate (session 43; built by flit_core, hatchling and setuptools 84 into
/// wheels that install it there), so the name is reason enough.
///
/// Test and documentation trees count too: a data mapping places their
/// files as readily (`tests/extra` as flit's `external-data` folder or
/// Hatch's `shared-data` source, `tests/extra/*` among setuptools' data
/// files or in `setup.cfg`), and the readers take a test tree's files for
/// data. Those four, each with a `.pth` whose import line pipes `curl`
/// into `sh`, were allowed by the shipped gate (session 44; built by
/// flit_core, hatchling and setuptools 84 into wheels that install the
/// `.pth` in site-packages). Of the 383 real sdists and their upgrades,
/// four ship such a file in a test tree (django's `tests/sitecustomize.py`,
/// jedi's and astroid's test `.pth` files, pexpect's `tests/fakessh/ssh`),
/// all four left to detectors already for other reasons.
///
/// The same holds for a file named as one of the environment's commands
/// (`python`, `pip`, `conda`) or the system's (`sudo`, `ssh`, a shell):
/// annotated-types mapping its `tools` folder into the commands with
/// Hatch's `shared-scripts` (`"tools" = "."`) installed `tools/pip` over
/// pip and was allowed (session 43; built by hatchling). Not the
/// activation scripts (`activate`, `activate.fish`, …), which virtualenv
/// ships as the templates it writes into new environments.
///
/// And for a file under a `share/` or `etc/` folder where a tool or a
/// shell runs it by itself once the build places that folder in the
/// prefix (`runs_from_prefix`): tomli with flit's `external-data`
/// holding `share/fish/vendor_conf.d/tomli.fish`,
/// `etc/jupyter/jupyter_server_config.py`, `etc/ipython/ipython_config.py`
/// or `etc/conda/activate.d/tomli.sh` was allowed by the shipped gate,
/// though the wheel flit built from it was not (session 45).
pub fn startup_or_config_file(path: &str, data: &[u8]) -> Option<&'static str> {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let activation = name.starts_with("activate") || name.starts_with("deactivate");
    if environment_command(name) && !activation {
        return Some(
            "one of the environment's own commands (python, pip, conda), once among its commands",
        );
    }
    if system_command(name) {
        return Some("a command the system provides (sudo, ssh, git, a shell, ...), once among the environment's commands");
    }
    // A place under the prefix where a tool or a shell runs a file, a file
    // that configures the prefix, or Python's standard library folder, as
    // the build would place it (`extra/share/zsh/site-functions/compinit`,
    // `extra/etc/npmrc`, `extra/lib/python3.11/json/__init__.py` under
    // flit's external-data).
    let found = at_folder(&lower, &["share/", "etc/", "lib/"], runs_from_prefix)
        .or_else(|| at_folder(&lower, &["conda-meta/", "etc/", "share/"], configures_prefix))
        .or_else(|| {
            at_folder(&lower, &["lib/", "lib64/"], |p| {
                versioned_standard_library(p).then_some(
                    "a file of Python's standard library, once in the prefix's lib/python3.X folder of Python's own installation",
                )
            })
        });
    if found.is_some() {
        return found;
    }
    let folder = lower.rsplit('/').nth(1).unwrap_or("");
    match folder {
        "completions" | "vendor_completions.d" | "site-functions"
            if completes_another_s_command(name) =>
        {
            return Some(SHELL_COMPLETION)
        }
        "vendor_functions.d" if fish_function_over(name) => return Some(FISH_FUNCTION),
        "vendor_conf.d" if name.ends_with(".fish") => return Some(FISH_CONF),
        _ => {}
    }
    // A completion for a system's command, or one of zsh's start-up
    // functions, wherever it lies: a folder mapping (Hatch's `"comp" =
    // "share/bash-completion/completions"`) places it without the
    // manifest naming the file. Not the environment's commands here:
    // pluggy's `downstream/recipes/conda.bash` is a script of its own.
    if completes_system_command(name) {
        return Some(SHELL_COMPLETION);
    }
    if ZSH_STARTUP.contains(&name) {
        return Some(ZSH_FUNCTION);
    }
    // ipykernel's kernelspec, as a wheel's `share/jupyter/kernels/python3/`
    // ([`owner_of`]), placed by external-data or a folder mapping.
    if name == "kernel.json" && folder == "python3" {
        return Some("the python3 kernelspec, whose command Jupyter runs for every Python notebook, once in the prefix's share/jupyter/kernels folder");
    }
    let module = lower
        .strip_suffix("/__init__.py")
        .or_else(|| lower.strip_suffix(".py"))
        .map(|m| m.rsplit('/').next().unwrap_or(m));
    if matches!(module, Some("sitecustomize" | "usercustomize")) {
        return Some("a module Python imports at every start, once in site-packages");
    }
    match name {
        "pip.conf" | "pip.ini" | "pyvenv.cfg" | ".condarc" | "condarc" => Some(
            "an installer's or the environment's configuration, once in the environment's folder",
        ),
        // Names no package's own file has, which a folder mapping (Hatch's
        // `"desktop" = "share/applications"`, `"conf" = "etc"`) places
        // where they take effect without the manifest naming them.
        "npmrc" => Some("npm's global configuration, once in the prefix's etc folder"),
        n if n == "mimeapps.list" || n.ends_with("-mimeapps.list") => Some(
            "the desktop's list of default applications, once in the prefix's share/applications folder",
        ),
        n if jupyter_or_ipython_config(n) => Some(
            "configuration Jupyter or IPython runs or obeys at every start, once in the prefix's etc/jupyter or etc/ipython folder",
        ),
        n if n.ends_with(".pth") && pth_runs_code(data) => {
            Some("a .pth file whose import lines Python runs at every start, once in site-packages")
        }
        _ => None,
    }
}

/// The first answer `check` gives for the rest of a path (lower case) from
/// a folder named by one of `tops` (`share/`, `etc/`), at the path's start
/// or after a `/`: where a build that places that folder in the prefix
/// would put the file.
fn at_folder(
    lower: &str,
    tops: &[&str],
    check: impl Fn(&str) -> Option<&'static str>,
) -> Option<&'static str> {
    tops.iter().find_map(|top| {
        lower
            .match_indices(top)
            .filter(|(at, _)| *at == 0 || lower.as_bytes()[at - 1] == b'/')
            .find_map(|(at, _)| check(&lower[at..]))
    })
}

/// Whether a file name (lower case) is one Jupyter's or IPython's
/// applications load as their configuration from `etc/jupyter` or
/// `etc/ipython` (`jupyter_config`, `jupyter_server_config`,
/// `ipython_config`, ... as `.py` or `.json`; not JupyterLite's
/// `jupyter_lite_config.json`, which its build reads).
fn jupyter_or_ipython_config(name: &str) -> bool {
    let Some(stem) = name
        .strip_suffix(".py")
        .or_else(|| name.strip_suffix(".json"))
    else {
        return false;
    };
    matches!(
        stem,
        "jupyter_config"
            | "jupyter_server_config"
            | "jupyter_notebook_config"
            | "jupyter_lab_config"
            | "jupyter_nbclassic_config"
            | "jupyter_nbconvert_config"
            | "jupyter_console_config"
            | "jupyter_qtconsole_config"
            | "ipython_config"
            | "ipython_kernel_config"
    )
}

/// Whether a `.pth` file holds a line Python's `site` module runs: one that
/// starts with `import` and a space or a tab (a byte-order mark before the
/// first is dropped, as `site` reads the file as `utf-8-sig`).
fn pth_runs_code(data: &[u8]) -> bool {
    let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    data.split(|&b| b == b'\n')
        .any(|line| line.starts_with(b"import ") || line.starts_with(b"import\t"))
}

/// Whether a file name (lower case) in the environment's commands folder is
/// one the environment itself provides: its Python, pip, and the activation
/// scripts a virtual environment holds (with `.exe` on Windows).
fn environment_command(name: &str) -> bool {
    let name = name.strip_suffix(".exe").unwrap_or(name);
    let versioned = |stem: &str| {
        name.strip_prefix(stem)
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    };
    versioned("python")
        || versioned("pythonw")
        || versioned("pip")
        || matches!(
            name,
            "activate"
                | "activate.bat"
                | "activate.csh"
                | "activate.fish"
                | "activate.nu"
                | "activate.ps1"
                | "activate.xsh"
                | "activate_this.py"
                | "deactivate"
                | "deactivate.bat"
                | "deactivate.nu"
                | "conda"
        )
}

/// The commands a `package.json` links into `node_modules/.bin` under a
/// name of the JavaScript toolchain or of the shell npm scripts run in
/// (`node`, `npm`, `npx`, `yarn`, `pnpm`, `corepack`, `sh`, `bash`), as
/// its `bin` names them (an object of names, or one path under the
/// package's own unscoped name). npm puts `node_modules/.bin` first on the
/// `PATH` of every script it runs for the project, so a dependency's `node`
/// runs in place of Node in all of them; what runs is the dependency's
/// file, judged as code, but not as what every script calls. No package is
/// exempt: the name a tarball installs under is the dependency's, not the
/// one its `package.json` claims. A `directories.bin` folder, whose every
/// file npm links, is [`npm_bin_dir`]'s.
pub fn npm_bins_over_toolchain(json: &serde_json::Value) -> Vec<String> {
    let names: Vec<String> = match json.get("bin") {
        Some(serde_json::Value::Object(bins)) => bins.keys().cloned().collect(),
        Some(serde_json::Value::String(_)) => json
            .get("name")
            .and_then(|n| n.as_str())
            .map(|n| n.rsplit('/').next().unwrap_or(n).to_string())
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    names.into_iter().filter(|n| toolchain_command(n)).collect()
}

/// The folder (`directories.bin`, resolved from the `package.json` at
/// `path`) whose every file npm links as a command, when the `package.json`
/// has no `bin`.
pub fn npm_bin_dir(path: &str, json: &serde_json::Value) -> Option<String> {
    if json.get("bin").is_some() {
        return None;
    }
    let dir = json.get("directories")?.get("bin")?.as_str()?;
    let base = path.rsplit_once('/').map_or("", |(d, _)| d);
    super::render::resolve_from(base, dir)
}

/// Whether a command name (any case; `.cmd`, `.ps1` or `.exe` as npm's
/// Windows shims add) is one of the JavaScript toolchain's, or one the
/// system provides ([`system_command`]: a dependency's `git` runs for
/// every npm script that calls git, a git hook's among them, and a global
/// install links it into a folder every shell searches).
pub fn toolchain_command(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let stem = [".cmd", ".ps1", ".exe"]
        .iter()
        .find_map(|ext| lower.strip_suffix(ext))
        .unwrap_or(&lower);
    matches!(
        stem,
        "node"
            | "nodejs"
            | "npm"
            | "npx"
            | "yarn"
            | "yarnpkg"
            | "pnpm"
            | "pnpx"
            | "corepack"
            | "sh"
            | "bash"
    ) || system_command(stem)
}

/// What [`in_manifest`] found a manifest line to name.
const MANIFEST_CONFIG: &str = "names a file that would become an installer's configuration for the environment (pip.conf, pip.ini, pyvenv.cfg, .condarc, npm's etc/npmrc) or the desktop's default applications (mimeapps.list) if installed as a data file";
const MANIFEST_COMMAND: &str =
    "declares a console script named as one of the environment's own commands (python, pip, activate)";
const MANIFEST_STARTUP: &str = "names a .pth file or a sitecustomize or usercustomize module, which Python runs at every start";
const MANIFEST_SYSTEM_COMMAND: &str = "declares a console script named as a command the system provides (sudo, ssh, git, a shell, ...), which would run in its place wherever the environment's commands come first on the PATH";
const MANIFEST_SCRIPT_FILE: &str = "installs a script file named as one of the environment's own commands (python, pip, activate), which the build copies among them";
const MANIFEST_SYSTEM_SCRIPT_FILE: &str = "installs a script file named as a command the system provides (sudo, ssh, git, a shell, ...), which would run in its place wherever the environment's commands come first on the PATH";
const MANIFEST_STDLIB: &str = "names a folder of Python's standard library (lib/python3.X/, not its site-packages), where a data file replaces a module every program imports when pip installs into Python's own installation";
const MANIFEST_ELSEWHERE: &str = "names a place where conda, Jupyter, IPython, fish, systemd or D-Bus runs a file by itself (conda's activate.d, env_vars.d and conda-meta, Python configuration in etc/jupyter or etc/ipython, fish's vendor_conf.d or vendor_functions.d, systemd's unit, generator and configuration folders, udev rules, D-Bus service folders) or ipykernel's python3 kernelspec, where a data file installed there would go";

/// The first line of a package manifest (`setup.py`, `setup.cfg` or
/// `pyproject.toml`, at any depth) that names one of the environment's
/// configuration files, names a file Python runs at every start (`x.pth`,
/// `*.pth`, `sitecustomize`) or a place where Jupyter, IPython or fish
/// run files by themselves (what [`in_wheel`] finds in a wheel's
/// `NAME.data/data/`), or declares a console script named as one of
/// its commands (`pip = x:main`, `"pip3" = "x:main"`, `'python=x.cli:run'`),
/// and what it does.
///
/// A `.pth` name errs toward blocking: the file runs only where `site`
/// reads it (site-packages itself, not a package's folder), and a
/// manifest names PyTorch weights (`model.pth`) the same way; coverage's
/// `a1_coverage.pth`, which its build copies into site-packages, is the
/// real case.
///
/// An entry point must name its callable after a colon (`x.cli:main`):
/// pip refuses to install a console script without one
/// (`MissingCallableSuffix`), and uv's script parser requires it too, so a
/// dotted callable alone (`pip = x.main`) installs no command and is not
/// counted here; [`in_wheel`] counts it all the same. No distribution is exempt, pip's own included: the
/// name an sdist installs under is in its metadata, which the file's or its
/// folder's name (`pip-26.3/`) may contradict, and a wheel, whose name pip
/// checks against its `.dist-info`, is the place for pip's exemption.
pub fn in_manifest(code: &Code) -> Option<(usize, &'static str)> {
    static CONFIG: OnceLock<Regex> = OnceLock::new();
    static STARTUP: OnceLock<Regex> = OnceLock::new();
    static ELSEWHERE: OnceLock<Regex> = OnceLock::new();
    let (path, data) = (code.path, code.data);
    let name = path.rsplit('/').next().unwrap_or(path);
    if !matches!(name, "setup.py" | "setup.cfg" | "pyproject.toml") {
        return None;
    }
    // What an installer reads that the lines do not show as written
    // (interpolated `setup.cfg` values, TOML escapes), as lines of its
    // own with the line to name, and the scripts the parsed file declares.
    let parsed = match name {
        "setup.cfg" => cfg_reading(code.setup_cfg()),
        "pyproject.toml" => code.toml().map(toml_reading).unwrap_or_default(),
        _ => Reading::default(),
    };
    // Names compared without case, as a case-insensitive disk does. Most
    // manifests hold none of the words: a search for them spares compiling
    // the patterns at all (the case-insensitive one cost 0.5 ms a process).
    let lower = data.to_ascii_lowercase();
    let holds_in = |text: &[u8], words: &[&str]| {
        words
            .iter()
            .any(|w| memchr::memmem::find(text, w.as_bytes()).is_some())
    };
    let holds = |words: &[&str]| holds_in(&lower, words);
    // The first line matching a pattern, compiled only once a manifest
    // holds one of its words.
    let first_line = |words: &[&str], cell: &'static OnceLock<Regex>, pattern: &str, what| {
        let re = || cell.get_or_init(|| build(pattern));
        let written = holds(words)
            .then(|| {
                lower
                    .split(|&b| b == b'\n')
                    .position(|line| re().is_match(line))
                    .map(|i| i + 1)
            })
            .flatten();
        // A line as written names the place best; the parsed reading
        // counts where no line does.
        let read = || {
            parsed
                .texts
                .iter()
                .filter(|(_, t)| holds_in(t.as_bytes(), words))
                .find(|(_, t)| re().is_match(t.as_bytes()))
                .map(|(at, _)| at.line(data))
        };
        written.or_else(read).map(|n| (n, what))
    };
    let named = first_line(
        &[
            "pip.",
            "pyvenv.cfg",
            "condarc",
            "npmrc",
            "mimeapps",
            "defaults.list",
        ],
        &CONFIG,
        r#"\b(?:pip\.(?:conf|ini)|pyvenv\.cfg)\b|\bcondarc\b|\betc/npmrc\b|\betc['"]?\s*[,=:][^\n]*[/'"\s,\[]npmrc\b|\bmimeapps\.list\b|\bshare/applications\b[^\n]*\bdefaults\.list\b"#,
        MANIFEST_CONFIG,
    );
    let startup = first_line(
        &[".pth", "customize"],
        &STARTUP,
        r"[\w*\-]\.pth\b|\b(?:site|user)customize\b",
        MANIFEST_STARTUP,
    );
    // What [`in_prefix`] and [`owner_of`] find in a wheel, as a data files
    // mapping names it: a `.py` on the line of an `etc/jupyter` folder
    // (`('etc/jupyter', ['jupyter_server_config.py'])`), not the JSON
    // settings folders Jupyter extensions map.
    let elsewhere = first_line(
        &[
            "etc/jupyter",
            "etc/ipython",
            "vendor_conf.d",
            "vendor_functions.d",
            "kernels/python3",
            "conda/activate.d",
            "conda/deactivate.d",
            "conda/env_vars.d",
            "conda-meta",
            "systemd/",
            "dbus-1/",
            "udev/rules.d",
            "tmpfiles.d",
            "sysctl.d",
            "modules-load.d",
            "binfmt.d",
            "environment.d",
        ],
        &ELSEWHERE,
        r#"\betc/(?:jupyter|ipython)\b.*\.py\b|\betc/(?:jupyter|ipython)(?:['"]?\s*[,=:][^\n]*|/[^/\s'"]+)\.json\b|\bvendor_(?:conf|functions)\.d\b|\bkernels/python3\b|\betc/conda/(?:(?:de)?activate|env_vars)\.d\b|\bconda-meta\b|\bshare/systemd/user\b|\blib/(?:systemd|udev/rules\.d|tmpfiles\.d|sysctl\.d|modules-load\.d|binfmt\.d|environment\.d)\b|\bshare/dbus-1/(?:system-)?services\b"#,
        MANIFEST_ELSEWHERE,
    );
    // Python's standard library folder (`lib/python3.11/json`), as a line
    // names it; site-packages and dist-packages are not it.
    let stdlib = holds(&["lib/python"])
        .then(|| {
            lower
                .split(|&b| b == b'\n')
                .position(names_standard_library)
                .map(|i| (i + 1, MANIFEST_STDLIB))
        })
        .flatten();
    let written_files = if name == "setup.py" {
        setup_py_script_files(data)
    } else {
        Vec::new()
    };
    // Every script group's name holds `scripts`, as written; TOML can
    // also write it as an inline table, dotted keys or escapes, and
    // `setup.cfg` on one line, with commas or by interpolation, which the
    // parsed file shows.
    let scripts = holds(&["scripts"]);
    let declared = |counts: fn(&str) -> bool| {
        let written = scripts.then(|| first_script_line(data, counts)).flatten();
        let read = || {
            parsed
                .scripts
                .iter()
                .find(|(n, _)| counts(n))
                .map(|(_, at)| at.line(data))
        };
        written.or_else(read)
    };
    let script = declared(environment_command).map(|n| (n, MANIFEST_COMMAND));
    let system = declared(system_command).map(|n| (n, MANIFEST_SYSTEM_COMMAND));
    // Script files the build copies among the commands under their own
    // names (setuptools' `scripts`, Hatch's `shared-scripts`).
    let files = || parsed.files.iter().chain(&written_files);
    let copied = |counts: fn(&str) -> bool| files().find(|(n, _)| counts(n));
    let file = copied(environment_command).map(|(_, at)| (at.line(data), MANIFEST_SCRIPT_FILE));
    let system_file =
        copied(system_command).map(|(_, at)| (at.line(data), MANIFEST_SYSTEM_SCRIPT_FILE));
    [
        named,
        startup,
        elsewhere,
        stdlib,
        script,
        system,
        file,
        system_file,
    ]
    .into_iter()
    .flatten()
    .min()
}

/// The script files a `setup.py` names in a literal `scripts=[…]` list,
/// as (file name in lower case, its line): setuptools copies each among
/// the environment's commands under its own name. A list the code builds
/// is left to the models, which read `setup.py` as code.
fn setup_py_script_files(data: &[u8]) -> Vec<(String, Written)> {
    static LIST: OnceLock<Regex> = OnceLock::new();
    static ITEM: OnceLock<Regex> = OnceLock::new();
    if memchr::memmem::find(data, b"scripts").is_none() {
        return Vec::new();
    }
    let list = LIST.get_or_init(|| build(r"\bscripts\s*=\s*[\[(](?P<items>[^\])]{0,4096})[\])]"));
    let item = ITEM.get_or_init(|| build(r#"["'](?P<path>[^"'\n]+)["']"#));
    let mut out = Vec::new();
    for c in list.captures_iter(data).take(16) {
        let Some(items) = c.name("items") else {
            continue;
        };
        for i in item.captures_iter(items.as_bytes()) {
            let path = String::from_utf8_lossy(&i["path"]).to_lowercase();
            let name = path.rsplit('/').next().unwrap_or(&path).to_string();
            let line = memchr::memchr_iter(
                b'\n',
                &data[..items.start() + i.get(0).map_or(0, |m| m.start())],
            )
            .count()
                + 1;
            out.push((name, Written::Line(line)));
        }
    }
    out
}

/// The files a manifest at `path` makes its entry points, as paths
/// relative to its folder: `entry_points = file: entry_points.cfg` under a
/// `setup.cfg`'s `[options]`, or `[tool.setuptools.dynamic] entry-points
/// = { file = [...] }` in a `pyproject.toml` (with `dynamic` naming
/// `scripts`). setuptools reads such a file as an entry-points text, so
/// its `[console_scripts]` become commands as the manifest's own would;
/// flake8 declaring `pip` in one was allowed by the shipped gate, from
/// either manifest (session 43). [`in_entry_point_file`] reads them.
pub fn entry_point_files(code: &Code) -> Vec<String> {
    let list = |files: &str| -> Vec<String> {
        files
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect()
    };
    match code.path.rsplit('/').next().unwrap_or(code.path) {
        "setup.cfg" => code
            .setup_cfg()
            .values
            .iter()
            .filter(|v| v.section == "options" && v.key() == "entry_points")
            .filter_map(|v| v.value.trim_start().strip_prefix("file:").map(list))
            .flatten()
            .collect(),
        "pyproject.toml" => {
            let Some(doc) = code.toml() else {
                return Vec::new();
            };
            let dynamic = super::fetched::setuptools_dynamic(doc);
            ["entry-points", "entry_points"]
                .into_iter()
                .filter_map(|k| dynamic.and_then(|d| d.get(k)))
                .flat_map(super::fetched::dynamic_files)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The files a root `pyproject.toml` (`code`) makes Hatch install under
/// another name that makes them code, where the scan reads them as
/// documentation or data: a `force-include` or `shared-data` entry
/// (`[tool.hatch.build]`'s or a target's) whose source is such a file and
/// whose destination is not (`"notes/usage.txt" = "pkg/_compat.py"`, or
/// `"lib/python3.12/site-packages/pkg/_compat.py"` among the shared
/// data), as paths from the manifest's folder. annotated-types so
/// installing a document as a module its `__init__.py` imports was
/// allowed, either way, and hatchling built the wheel with the module
/// (session 44). A `force-include` source in a test or docs tree is
/// [`super::unread`]'s (it opens the tree).
pub fn force_included_as_code(code: &Code) -> Vec<String> {
    let Some(doc) = super::fetched::root_pyproject(code) else {
        return Vec::new();
    };
    let dir = code.path.rsplit_once('/').map_or("", |(d, _)| d);
    super::fetched::hatch_build_tables(doc)
        .flat_map(|b| [b.get("force-include"), b.get("shared-data")])
        .flatten()
        .filter_map(toml::Value::as_table)
        .flatten()
        .filter_map(|(source, dest)| {
            let dest = dest.as_str()?;
            let from = super::render::resolve_from(dir, source)?;
            let to = super::render::resolve_from(dir, dest.trim_start_matches('/'))?;
            (super::render::is_inert(&from) && !super::render::is_inert(&to)).then_some(from)
        })
        .collect()
}

/// The first line of an entry-points file a manifest names
/// ([`entry_point_files`]) that declares a console or GUI script named as
/// one of the environment's commands or the system's, and what it does, as
/// [`in_manifest`] finds in the manifest itself. The callable's colon is
/// not required here: `configparser` interpolates the target of a file
/// `[tool.setuptools.dynamic]` names, so the text need not show it.
pub fn in_entry_point_file(data: &[u8]) -> Option<(usize, &'static str)> {
    ini_scripts(&String::from_utf8_lossy(data))
        .into_iter()
        .find_map(|(name, _, line)| {
            if environment_command(&name) {
                Some((line, MANIFEST_COMMAND))
            } else {
                system_command(&name).then_some((line, MANIFEST_SYSTEM_COMMAND))
            }
        })
}

/// The first line of a manifest that declares a console or GUI script
/// whose (lower-case) name `counts`. Entry points are read in the group
/// they belong to, as the manifest's text sets it: a section header
/// (`[console_scripts]` in INI text, `[project.scripts]`,
/// `[project.gui-scripts]` and `[tool.poetry.scripts]` in TOML), a
/// `setup.cfg` key with its value on the lines below (`console_scripts =`),
/// or a `setup.py` dictionary key (`'console_scripts': [`). An entry point
/// in another group (babel's `[babel.extractors]` names one `python`) is
/// not a command.
fn first_script_line(data: &[u8], counts: impl Fn(&str) -> bool) -> Option<usize> {
    static ITEMS: OnceLock<Regex> = OnceLock::new();
    let items = ITEMS.get_or_init(|| {
        build(concat!(
            r"(?m)^[ \t]*\[[ \t]*(?P<header>[^\]\n]*?)[ \t]*\]",
            r#"|['"](?P<key>[\w.\-]+)['"][ \t]*:"#,
            r"|^[ \t]*(?P<cfg>[\w.\-]+)[ \t]*=[ \t]*$",
            r#"|(?:^|['"])[ \t]*['"]?(?P<name>[A-Za-z0-9_.\-]+)['"]?[ \t]*=[ \t]*['"]?[A-Za-z_][\w.]*[ \t]*:[ \t]*[A-Za-z_]"#,
        ))
    });
    let scripts = |group: &[u8]| {
        matches!(
            group.to_ascii_lowercase().as_slice(),
            b"console_scripts"
                | b"gui_scripts"
                | b"project.scripts"
                | b"project.gui-scripts"
                | b"tool.poetry.scripts"
        )
    };
    let mut in_scripts = false;
    for c in items.captures_iter(data) {
        if let Some(group) = c.name("header").or(c.name("key")).or(c.name("cfg")) {
            in_scripts = scripts(group.as_bytes());
        } else if let Some(name) = c.name("name").filter(|_| in_scripts) {
            if counts(&String::from_utf8_lossy(name.as_bytes()).to_ascii_lowercase()) {
                let at = c.get(0).map_or(0, |m| m.start());
                return Some(memchr::memchr_iter(b'\n', &data[..at]).count() + 1);
            }
        }
    }
    None
}

/// What an installer reads from a manifest, beyond its lines as written.
#[derive(Default)]
struct Reading {
    /// (where, `key = value` in lower case) for each value as read.
    texts: Vec<(Written, String)>,
    /// (script name in lower case, where) for each console or GUI script
    /// the parsed file declares.
    scripts: Vec<(String, Written)>,
    /// (file name in lower case, where) for each script file the build
    /// copies among the environment's commands under its own name.
    files: Vec<(String, Written)>,
}

/// Where a value [`Reading`] found is written: a known line, or a key
/// whose line to look for, with the line to name when no line writes it.
/// The search is made only for the value a rule reports: one per value
/// of a file of 200,000 keys took longer than a minute.
enum Written {
    Line(usize),
    Key(String, usize),
}

impl Written {
    fn line(&self, data: &[u8]) -> usize {
        match self {
            Written::Line(n) => *n,
            Written::Key(k, or) => super::fetched::written_as_key(data, k).unwrap_or(*or),
        }
    }
}

/// A `setup.cfg` as setuptools reads it ([`super::fetched::setup_cfg`]):
/// the console and GUI scripts of `[options.entry_points]` (a value on
/// one line is a list split at commas, lines below it one entry each) and
/// of an `entry_points` option under `[options]` written in place (an
/// entry-points text), and each line of every value, interpolated, after
/// its option's name (`etc/jupyter = x.py` where the file lists `x.py`
/// on the line below). The text
/// patterns read lines: `console_scripts = pip = x:main`, a comma list,
/// `%(name)s` or a `[DEFAULT]` option passed them, and flake8 declaring
/// `pip` or `sudo`, or mapping `hook.p%(t)sh` into site-packages, was
/// allowed by the shipped gate (session 43; each built by setuptools 84
/// into a wheel that installs it).
fn cfg_reading(cfg: &CfgValues) -> Reading {
    let mut out = Reading::default();
    for v in &cfg.values {
        for item in v.value.lines() {
            let text = format!("{} = {}", v.name, item.trim());
            out.texts.push((Written::Line(v.line), text.to_lowercase()));
        }
        if v.section == "options" && v.key() == "scripts" {
            for item in v
                .value
                .split(['\n', ','])
                .map(str::trim)
                .filter(|i| !i.is_empty())
            {
                let name = item.rsplit('/').next().unwrap_or(item).to_lowercase();
                out.files.push((name, Written::Line(v.line)));
            }
        }
        let scripts: Vec<(String, String)> = match (v.section.as_str(), v.key().as_str()) {
            ("options.entry_points", "console_scripts" | "gui_scripts") => v
                .value
                .split(['\n', ','])
                .filter_map(|item| item.split_once('='))
                .map(|(n, t)| (n.trim().to_lowercase(), t.trim().to_string()))
                .collect(),
            ("options", "entry_points") if !v.value.trim_start().starts_with("file:") => {
                ini_scripts(&v.value)
                    .into_iter()
                    .map(|(n, t, _)| (n, t))
                    .collect()
            }
            _ => Vec::new(),
        };
        for (name, target) in scripts {
            // pip installs no console script whose callable lacks its
            // colon ([`in_manifest`]).
            if target.contains(':') {
                out.scripts.push((name.clone(), Written::Key(name, v.line)));
            }
        }
    }
    out
}

/// A parsed `pyproject.toml`: the script names of `[project.scripts]`,
/// `[project.gui-scripts]`, `[tool.poetry.scripts]` and setuptools'
/// `[project.entry-points.console_scripts]`, however written,
/// and each string as `key = value`, escapes read (an array's items after
/// its key, whichever lines they are on). The text patterns of
/// [`first_script_line`] read a header and `name = "module:function"`
/// lines; `scripts = { pip = "x:main" }` under `[project]`, `scripts.pip =
/// …`, `[ project . scripts ]` or an escaped key passed them, and tomli
/// declaring `pip` so was allowed (session 42); so did flake8 mapping
/// `"hook\u002epth"` into site-packages as a data file (session 43). A
/// file that does not parse declares nothing here;
/// [`super::fetched::unparsed_pyproject`] keeps the package's own from
/// being cleared.
fn toml_reading(doc: &toml::Table) -> Reading {
    let project = doc.get("project");
    let poetry = doc.get("tool").and_then(|t| t.get("poetry"));
    // setuptools also takes the groups under `entry-points` (or
    // `entry_points`), where the standard forbids them and hatchling and
    // flit refuse them: cachetools declaring `pip` so was allowed
    // (session 43; setuptools 84 built the launcher).
    let groups = ["entry-points", "entry_points"]
        .into_iter()
        .filter_map(|k| project.and_then(|p| p.get(k)))
        .flat_map(|t| [t.get("console_scripts"), t.get("gui_scripts")]);
    let scripts = [
        project.and_then(|p| p.get("scripts")),
        project.and_then(|p| p.get("gui-scripts")),
        poetry.and_then(|p| p.get("scripts")),
    ]
    .into_iter()
    .chain(groups)
    .flatten()
    .filter_map(toml::Value::as_table)
    .flat_map(|t| t.keys().map(|k| k.to_ascii_lowercase()))
    .map(|name| (name.clone(), Written::Key(name, 1)))
    .collect();
    // setuptools' `script-files`; Hatch's `shared-scripts`, whose values
    // are the names they get among the commands.
    let tool = doc.get("tool");
    let setuptools = tool.and_then(|t| t.get("setuptools"));
    let hatch = tool
        .and_then(|t| t.get("hatch"))
        .and_then(|h| h.get("build"));
    let mut files = Vec::new();
    let mut name_of = |key: &str, path: &str| {
        let lower = path.to_lowercase();
        let name = lower.rsplit('/').next().unwrap_or(&lower).to_string();
        files.push((name, Written::Key(key.to_string(), 1)));
    };
    for key in ["script-files", "script_files"] {
        for path in setuptools
            .and_then(|s| s.get(key))
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(toml::Value::as_str)
        {
            name_of(key, path);
        }
    }
    let wheel = hatch
        .and_then(|b| b.get("targets"))
        .and_then(|t| t.get("wheel"));
    for table in [hatch, wheel]
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("shared-scripts"))
        .filter_map(toml::Value::as_table)
    {
        for (source, dest) in table {
            if let Some(dest) = dest.as_str() {
                name_of(&source.to_lowercase(), dest);
            }
        }
    }
    let mut texts = Vec::new();
    toml_strings(doc, &mut |key, value| {
        let key = key.to_lowercase();
        let text = format!("{key} = {}", value.to_lowercase());
        texts.push((Written::Key(key, 1), text));
    });
    Reading {
        texts,
        scripts,
        files,
    }
}

/// Calls `each(key, string)` for every string of a TOML table, in arrays
/// and nested tables too, with the key it is under.
fn toml_strings(table: &toml::Table, each: &mut impl FnMut(&str, &str)) {
    fn value(key: &str, v: &toml::Value, each: &mut impl FnMut(&str, &str)) {
        match v {
            toml::Value::String(s) => each(key, s),
            toml::Value::Array(items) => items.iter().for_each(|i| value(key, i, each)),
            toml::Value::Table(t) => toml_strings(t, each),
            _ => {}
        }
    }
    for (key, v) in table {
        value(key, v, each);
    }
}

/// A pattern of this module. A constant checked by unit tests: a failure to
/// compile is a build defect.
fn build(pattern: &str) -> Regex {
    regex::bytes::RegexBuilder::new(pattern)
        .unicode(false)
        .build()
        .expect("placement patterns compile")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replaces(path: &str) -> bool {
        matches!(in_wheel(path, b""), Some(Placement::Replaces(_)))
    }

    fn runs(path: &str, data: &str) -> bool {
        matches!(
            in_wheel(path, data.as_bytes()),
            Some(Placement::RunsByItself(_))
        )
    }

    #[test]
    fn only_a_wheel_s_files_for_the_environment_s_share_folder_are_shared_data() {
        for path in [
            "a-1.data/data/share/jupyter/lab/static/1.js",
            "a-1.data/data/Share/x.js",
        ] {
            assert!(in_shared_data(path), "{path}");
        }
        for path in [
            "a-1.data/data/share",
            "a-1.data/data/lib/python3.12/site-packages/x.py",
            "a-1.data/data/etc/conda/activate.d/x.sh",
            "a-1.data/purelib/share/x.js",
            "a-1.data/scripts/share/x",
            "share/x.js",
            "a/share/x.js",
        ] {
            assert!(!in_shared_data(path), "{path}");
        }
    }

    #[test]
    fn members_go_where_pip_writes_them() {
        assert_eq!(
            destination("pkg/x.py"),
            Destination::SitePackages("pkg/x.py")
        );
        assert_eq!(destination("x.pth"), Destination::SitePackages("x.pth"));
        assert_eq!(
            destination("a-1.data/purelib/x.pth"),
            Destination::SitePackages("x.pth")
        );
        assert_eq!(
            destination("a-1.data/platlib/x.pth"),
            Destination::SitePackages("x.pth")
        );
        assert_eq!(
            destination("a-1.data/scripts/pip"),
            Destination::Scripts("pip")
        );
        assert_eq!(
            destination("a-1.data/data/pip.conf"),
            Destination::Prefix("pip.conf")
        );
        assert_eq!(destination("a-1.data/headers/x.h"), Destination::Elsewhere);
        // pip refuses an unknown scheme, and compares names exactly.
        assert_eq!(
            destination("a-1.data/Data/pip.conf"),
            Destination::Elsewhere
        );
        assert_eq!(
            destination("a-1.DATA/data/pip.conf"),
            Destination::SitePackages("a-1.DATA/data/pip.conf")
        );
    }

    #[test]
    fn the_environment_s_configuration_and_commands_are_replaced() {
        for path in [
            "a-1.data/data/pip.conf",
            "a-1.data/data/PIP.INI",
            "a-1.data/data/pyvenv.cfg",
            "a-1.data/data/.condarc",
            "a-1.data/data/condarc.d/channels.yml",
            "a-1.data/scripts/pip",
            "a-1.data/scripts/pip3.12",
            "a-1.data/scripts/python3",
            "a-1.data/scripts/Activate.ps1",
            "a-1.data/scripts/pythonw.exe",
            "a-1.data/data/bin/activate",
            "a-1.data/data/bin/python",
            "a-1.data/data/Scripts/pip.exe",
            // conda's records and the variables its activation sets, as
            // conda and mamba name them (session 45).
            "a-1.data/data/conda-meta/state",
            "a-1.data/data/conda-meta/x-1-0.json",
            "a-1.data/data/etc/conda/env_vars.d/x.json",
            "a-1.data/data/etc/npmrc",
            // Python's standard library, where the prefix is Python's own
            // installation (session 45).
            "a-1.data/data/lib/python3.11/json/__init__.py",
            "a-1.data/data/lib/python3.12/site.py",
            "a-1.data/data/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so",
            "a-1.data/data/Lib/json/__init__.py",
            "a-1.data/data/DLLs/_ssl.pyd",
            "a-1.data/data/lib/python3.13t/os.py",
            "a-1.data/data/lib/python3.12/ensurepip/_bundled/pip-25.0-py3-none-any.whl",
            "a-1.data/data/share/applications/mimeapps.list",
            "a-1.data/data/share/applications/gnome-mimeapps.list",
            "a-1.data/data/share/applications/defaults.list",
        ] {
            assert!(replaces(path), "{path}");
        }
        // Commands the system provides, under the same folders.
        for path in [
            "a-1.data/scripts/sudo",
            "a-1.data/scripts/SSH",
            "a-1.data/scripts/git.exe",
            "a-1.data/data/bin/bash",
        ] {
            assert_eq!(
                in_wheel(path, b""),
                Some(Placement::Replaces(SYSTEM_COMMAND)),
                "{path}"
            );
        }
        // Commands packages on PyPI provide, and names that only start
        // like a system's.
        for path in [
            "a-1.data/scripts/node",
            "a-1.data/scripts/cmake",
            "a-1.data/scripts/git-filter-repo",
            "a-1.data/scripts/sudoku",
            "a-1/sudo",
            "a-1.data/purelib/conda-meta/state",
            "a-1.data/data/etc/conda/x.json",
            "a-1.data/data/etc/npmrc.d/x",
            "a-1.data/data/share/npmrc",
            "a-1.data/data/share/applications/x.desktop",
            "a-1.data/data/share/mimeapps.list",
            "a-1.data/data/lib/libx.so.1",
            "a-1.data/data/lib/pkgconfig/x.pc",
            "a-1.data/data/lib/python3.11/site-packages/x/__init__.py",
            "a-1.data/data/lib/site-packages/x/__init__.py",
        ] {
            assert_eq!(in_wheel(path, b""), None, "{path}");
        }
    }

    #[test]
    fn files_that_run_at_every_start_are_found() {
        let import = "import os; os.environ['PIP_INDEX_URL'] = 'https://example.net'\n";
        for path in [
            "hook.pth",
            "a-1.data/purelib/hook.pth",
            "a-1.data/data/lib/python3.12/site-packages/hook.pth",
            "a-1.data/data/Lib/site-packages/hook.pth",
            "a-1.data/data/lib/python3.11/dist-packages/hook.pth",
            "a-1.data/data/lib/python3/dist-packages/hook.pth",
            "a-1.data/data/lib64/python3.11/site-packages/hook.pth",
        ] {
            assert!(runs(path, import), "{path}");
        }
        assert!(runs("x.pth", "./vendor\n\u{feff}\nimport\tx\n"));
        assert!(runs("x.pth", "\u{feff}import x\n"));
        for path in [
            "sitecustomize.py",
            "UserCustomize.py",
            "sitecustomize/__init__.py",
            "a-1.data/platlib/sitecustomize.py",
            "a-1.data/data/lib/python3.11/site-packages/usercustomize.py",
            "a-1.data/data/etc/conda/activate.d/env.sh",
            "a-1.data/data/etc/conda/deactivate.d/env.sh",
            "a-1.data/data/etc/jupyter/jupyter_server_config.py",
            "a-1.data/data/etc/ipython/ipython_config.py",
            "a-1.data/data/Etc/Jupyter/nbconfig/x.py",
            "a-1.data/data/etc/ipython/ipython_config.json",
            "a-1.data/data/etc/jupyter/jupyter_server_config.json",
            "a-1.data/data/share/fish/vendor_conf.d/x.fish",
            // fish loads these when `ls`, `sudo` or `cd` is called, or
            // draws its prompt (session 45).
            "a-1.data/data/share/fish/vendor_functions.d/ls.fish",
            "a-1.data/data/share/fish/vendor_functions.d/sudo.fish",
            "a-1.data/data/share/fish/vendor_functions.d/cd.fish",
            "a-1.data/data/share/fish/vendor_functions.d/fish_prompt.fish",
            "a-1.data/data/share/fish/vendor_functions.d/__fish_config_interactive.fish",
            "a-1.data/data/share/fish/vendor_functions.d/pip3.11.fish",
            // systemd starts these at login or boot in place of the
            // system's own units of those names, and the session bus runs
            // the secret store's service (session 45).
            "a-1.data/data/share/systemd/user/dbus.service",
            "a-1.data/data/share/systemd/user/default.target.wants/x.service",
            "a-1.data/data/lib/systemd/system/cron.service",
            "a-1.data/data/lib/systemd/user/gpg-agent.service.d/override.conf",
            "a-1.data/data/lib/systemd/system-generators/x",
            "a-1.data/data/lib/tmpfiles.d/x.conf",
            "a-1.data/data/lib/udev/rules.d/99-x.rules",
            "a-1.data/data/lib/binfmt.d/x.conf",
            "a-1.data/data/lib/environment.d/50-x.conf",
            "a-1.data/data/share/dbus-1/services/org.freedesktop.secrets.service",
            "a-1.data/data/share/dbus-1/system-services/org.freedesktop.login1.service",
            // CMake loads another project's configuration from an
            // activated environment (session 45).
            "a-1.data/data/lib/cmake/Eigen3/Eigen3Config.cmake",
            "a-1.data/data/share/cmake/ZLIB/ZLIBConfig.cmake",
            // bash-completion, fish and zsh run these on Tab after `ssh`,
            // `git`, `pip`; zsh runs its `compinit` at start.
            "a-1.data/data/share/bash-completion/completions/ssh",
            "a-1.data/data/share/bash-completion/completions/git.bash",
            "a-1.data/data/share/bash-completion/completions/_pip",
            "a-1.data/data/share/fish/vendor_completions.d/git.fish",
            "a-1.data/data/share/zsh/site-functions/_git",
            "a-1.data/data/share/zsh/site-functions/compinit",
        ] {
            assert!(runs(path, ""), "{path}");
        }
        // Settings Jupyter reads as data (the veto reads them as code),
        // fish's completions (run on a command's completion), and the same
        // names outside the environment's folder.
        for path in [
            "a-1.data/data/etc/jupyter/jupyter_server_config.d/x.json",
            "a-1.data/data/etc/jupyter/nbconfig/notebook.d/x.json",
            "a-1.data/data/share/fish/vendor_completions.d/x.fish",
            "a-1.data/data/share/bash-completion/completions/a",
            "a-1.data/data/share/bash-completion/completions/mytool.bash",
            "a-1.data/data/share/zsh/site-functions/_mytool",
            "a-1.data/data/share/zsh/site-functions/git",
            "a-1.data/data/share/jupyter/kernels/x/kernel.json",
            "etc/jupyter/jupyter_server_config.py",
            "a-1.data/purelib/etc/jupyter/x.py",
            "share/fish/vendor_conf.d/x.fish",
            "a-1.data/data/share/fish/vendor_functions.d/mytool.fish",
            "a-1.data/data/share/fish/vendor_functions.d/ls",
            "a-1.data/data/share/systemd/x.service",
            "a-1.data/data/lib/udev/x.rules",
            "pybind11_global-2.13.6.data/data/share/cmake/pybind11/pybind11Config.cmake",
            "eigen-3.4.0.data/data/lib/cmake/Eigen3-3.4/Eigen3Config.cmake",
            "a-1.data/data/share/cmake-3.31/Modules/FindZLIB.cmake",
            "a-1.data/data/lib/x/tmpfiles.d/x.conf",
            "a-1.data/data/share/dbus-1/interfaces/org.x.xml",
            "a-1.data/purelib/share/systemd/user/dbus.service",
        ] {
            assert!(!runs(path, ""), "{path}");
        }
    }

    #[test]
    fn console_scripts_named_as_the_environment_s_commands_are_found() {
        let ep = |dist: &str, text: &str| {
            in_wheel(
                &format!("{dist}.dist-info/entry_points.txt"),
                text.as_bytes(),
            )
        };
        assert_eq!(
            ep("tomli-2.5.0", "[console_scripts]\npip = tomli.cli:main\n"),
            Some(Placement::Replaces(LAUNCHER))
        );
        assert_eq!(
            ep(
                "x-1",
                "[gui_scripts]\nfoo = x:a\n\n[Console_Scripts]\n  Python3 = x:b\n"
            ),
            Some(Placement::Replaces(LAUNCHER))
        );
        // pip's own, other distributions' own commands, names outside the
        // script sections, and the file anywhere but the top.
        assert_eq!(ep("pip-26.3", "[console_scripts]\npip = pip._internal.cli.main:main\npip3 = pip._internal.cli.main:main\n"), None);
        assert_eq!(
            ep("pip-26.3", "[console_scripts]\npython = x:main\n"),
            Some(Placement::Replaces(LAUNCHER))
        );
        assert_eq!(
            ep("pipx-1.7", "[console_scripts]\npipx = pipx.main:cli\n"),
            None
        );
        assert_eq!(
            ep("x-1", "[console_scripts]\nx = x:a\nsudo = x:b\n"),
            Some(Placement::Replaces(SYSTEM_LAUNCHER))
        );
        // Groups as importlib.metadata reads them: brackets stripped
        // (checked against Python 3.11's `EntryPoints`).
        assert_eq!(
            ep("x-1", "[[console_scripts]]\npip = x:a\n"),
            Some(Placement::Replaces(LAUNCHER))
        );
        assert_eq!(
            ep("x-1", "[[[gui_scripts]]]\nsudo = x:a\n"),
            Some(Placement::Replaces(SYSTEM_LAUNCHER))
        );
        assert_eq!(ep("x-1", "[x.plugins]\nssh = x:plugin\n"), None);
        assert_eq!(ep("pip_tools-7.4", "[console_scripts]\npip-compile = piptools.scripts.compile:cli\npip-sync = piptools.scripts.sync:cli\n"), None);
        assert_eq!(ep("x-1", "[x.plugins]\npip = x:plugin\n"), None);
        assert_eq!(
            in_wheel(
                "vendor/x-1.dist-info/entry_points.txt",
                b"[console_scripts]\npip = x:a\n"
            ),
            None
        );
    }

    #[test]
    fn manifests_that_place_over_the_environment_s_files_are_found() {
        for (path, text, line, what) in [
            (
                "certifi-1/setup.py",
                "from setuptools import setup\nsetup(\n    data_files=[('', ['certifi/pip.conf'])],\n)\n",
                3,
                MANIFEST_CONFIG,
            ),
            (
                "x-1/setup.cfg",
                "[options.data_files]\n. = conf/PIP.INI\n",
                2,
                MANIFEST_CONFIG,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.hatch.build.targets.wheel.shared-data]\n\"conf/x\" = \"pyvenv.cfg\"\n",
                2,
                MANIFEST_CONFIG,
            ),
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\n[project.scripts]\n\"pip3\" = \"x.cli:main\"\n",
                4,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts =\n    python = x.cli:main\n",
                3,
                MANIFEST_COMMAND,
            ),
            // TOML's other ways to write the table, as `tomllib` reads them
            // (each allowed with tomli before session 42): an inline table,
            // dotted keys, a spaced header, Poetry's table form, and an
            // escaped key (no line writes it: line 1).
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\nscripts = { x = \"x:a\", pip = \"x.cli:main\" }\n",
                3,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\ngui-scripts.Python3 = \"x.cli:main\"\n",
                3,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\n\n[ project . scripts ]\nsudo = \"x.cli:main\"\n",
                5,
                MANIFEST_SYSTEM_COMMAND,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.poetry]\nname = \"x\"\n[tool.poetry.scripts]\npip = { reference = \"x.cli:main\", type = \"console\" }\n",
                4,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\n[project.scripts]\n\"\\u0070ip\" = \"x.cli:main\"\n",
                1,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/setup.py",
                "setup(entry_points={'console_scripts': ['x = x:a', 'pip=x.cli:main']})\n",
                1,
                MANIFEST_COMMAND,
            ),
            // `setup.cfg` as setuptools reads it (each built by setuptools
            // 84 into a wheel that installs the command or file, and
            // allowed with flake8 before session 43): a value on one line,
            // a comma list, an entry built by interpolation, a `[DEFAULT]`
            // option, an entry-points text in place with an interpolated
            // name (no line writes it as a key: the option's line).
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts = pip = x.cli:main\n",
                2,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts = x = x:a, sudo = x.cli:main\n",
                2,
                MANIFEST_SYSTEM_COMMAND,
            ),
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nx.spare = pip = x.cli:main\nconsole_scripts =\n    x = x:a\n    %(x.spare)s\n",
                2,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/setup.cfg",
                "[DEFAULT]\nconsole_scripts = python3 = x.cli:main\n[metadata]\nname = x\n[options.entry_points]\n",
                2,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/setup.cfg",
                "[options]\ncmd = pip\nentry_points =\n    [console_scripts]\n    %(cmd)s = x.cli:main\n",
                3,
                MANIFEST_COMMAND,
            ),
            // Data files: a name built by interpolation, a file listed on
            // the line below its folder.
            (
                "x-1/setup.cfg",
                "[options.data_files]\nshare/x = x/hook.p\nlib/python3.12/site-packages = %(share/x)sth\n",
                3,
                MANIFEST_STARTUP,
            ),
            (
                "x-1/setup.cfg",
                "[options.data_files]\netc/jupyter/jupyter_server_config.d =\n    x/config.py\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            // `pyproject.toml` strings as TOML reads them: escapes, and an
            // array's items on the lines below its key.
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\n[tool.setuptools.data-files]\n\"lib/python3.12/site-packages\" = [\"x/hook\\u002epth\"]\n",
                4,
                MANIFEST_STARTUP,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.data-files]\netc = [\"x/pip\\u002econf\"]\n",
                2,
                MANIFEST_CONFIG,
            ),
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\n[project.entry-points.console_scripts]\npip = \"x:main\"\n",
                4,
                MANIFEST_COMMAND,
            ),
            (
                "x-1/pyproject.toml",
                "[project.entry_points.\"gui_scripts\"]\nbash = \"x:main\"\n",
                2,
                MANIFEST_SYSTEM_COMMAND,
            ),
            // Script files copied among the commands under their names:
            // setuptools' `scripts` (each built by setuptools 84 into a
            // wheel whose `.data/scripts/pip` replaces pip, and allowed
            // with cachetools and flake8 before session 43) and Hatch's
            // `shared-scripts`.
            (
                "x-1/pyproject.toml",
                "[project]\nname = \"x\"\n[tool.setuptools]\nscript-files = [\"bin/x\", \"bin/pip\"]\n",
                4,
                MANIFEST_SCRIPT_FILE,
            ),
            (
                "x-1/setup.cfg",
                "[metadata]\nname = x\n[options]\nscripts =\n    bin/x\n    tools/Python3\n",
                4,
                MANIFEST_SCRIPT_FILE,
            ),
            (
                "x-1/setup.py",
                "from setuptools import setup\nsetup(\n    name='x',\n    scripts=[\n        'bin/x',\n        'bin/sudo',\n    ],\n)\n",
                6,
                MANIFEST_SYSTEM_SCRIPT_FILE,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.hatch.build.targets.wheel.shared-scripts]\n\"tools/run.sh\" = \"ssh\"\n",
                2,
                MANIFEST_SYSTEM_SCRIPT_FILE,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.data-files]\n\"etc/jupyter\" = [\n    \"x/jupyter_server_config.py\",\n]\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            // Files Python runs at every start: a `.pth` (Windows reads
            // the environment's folder too) or a `sitecustomize` module.
            (
                "x-1/setup.py",
                "setup(\n    data_files=[('', ['x/x-init.pth'])],\n)\n",
                2,
                MANIFEST_STARTUP,
            ),
            (
                "x-1/setup.py",
                "setup(name='x', py_modules=['SiteCustomize'])\n",
                1,
                MANIFEST_STARTUP,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.package-data]\nx = [\"*.pth\"]\n",
                2,
                MANIFEST_STARTUP,
            ),
            (
                "coverage-7/setup.py",
                "import os\n\nPTH_NAME = \"a1_coverage.pth\"\n",
                3,
                MANIFEST_STARTUP,
            ),
            // Where Jupyter, IPython or fish run files by themselves.
            (
                "x-1/setup.py",
                "setup(\n    data_files=[\n        ('etc/jupyter', ['x/jupyter_server_config.py']),\n    ],\n)\n",
                3,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.hatch.build.targets.wheel.shared-data]\n\"kernel\" = \"share/jupyter/kernels/python3\"\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/setup.cfg",
                "[options.data_files]\nshare/fish/vendor_conf.d = x.fish\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            // conda's activation, fish's functions, systemd's units and
            // D-Bus services (session 45).
            (
                "x-1/setup.py",
                "setup(\n    data_files=[('etc/conda/activate.d', ['x.sh'])],\n)\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/setup.cfg",
                "[metadata]\nname = x\n[options.data_files]\nconda-meta = state\n",
                4,
                MANIFEST_ELSEWHERE,
            ),
            // npm's global configuration, where Node shares the prefix.
            (
                "x-1/setup.py",
                "setup(\n    data_files=[('etc', ['x/npmrc'])],\n)\n",
                2,
                MANIFEST_CONFIG,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.hatch.build.targets.wheel.shared-data]\n\"x/n\" = \"etc/npmrc\"\n",
                2,
                MANIFEST_CONFIG,
            ),
            // Python's standard library folder (session 45).
            (
                "x-1/setup.py",
                "setup(\n    data_files=[('lib/python3.11/json', ['x/__init__.py'])],\n)\n",
                2,
                MANIFEST_STDLIB,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.data-files]\n\"lib/python3.12\" = [\"x/site.py\"]\n",
                2,
                MANIFEST_STDLIB,
            ),
            // The desktop's default applications.
            (
                "x-1/setup.cfg",
                "[options.data_files]\nshare/applications = x/mimeapps.list\n",
                2,
                MANIFEST_CONFIG,
            ),
            // Jupyter's and IPython's whole configuration as JSON.
            (
                "x-1/setup.py",
                "setup(\n    data_files=[('etc/ipython', ['x/ipython_config.json'])],\n)\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.hatch.build.targets.wheel.shared-data]\n\"x/c.json\" = \"etc/jupyter/jupyter_server_config.json\"\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/setup.cfg",
                "[options.data_files]\nshare/fish/vendor_functions.d = ls.fish\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.data-files]\n\"share/systemd/user\" = [\"dbus.service\"]\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/setup.cfg",
                "[options.data_files]\nlib/udev/rules.d = 99-x.rules\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.data-files]\n\"lib/tmpfiles.d\" = [\"x.conf\"]\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            (
                "x-1/setup.py",
                "DATA = [\n    ('share/dbus-1/services', ['org.freedesktop.secrets.service']),\n]\n",
                2,
                MANIFEST_ELSEWHERE,
            ),
            // The first line found decides, whatever kind it is.
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts =\n    pip = x:main\n[options.data_files]\n. = usercustomize.py, pip.conf\n",
                3,
                MANIFEST_COMMAND,
            ),
            // A console script named as a system's command.
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts =\n    x = x.cli:main\n    ssh = x.cli:ssh\n",
                4,
                MANIFEST_SYSTEM_COMMAND,
            ),
            // An sdist's folder name exempts nothing: what it installs as
            // is in its metadata.
            (
                "pip-26.3/pyproject.toml",
                "[project.scripts]\npip = \"pip._internal.cli.main:main\"\n",
                2,
                MANIFEST_COMMAND,
            ),
        ] {
            assert_eq!(in_manifest(&Code::new(path, text.as_bytes())), Some((line, what)), "{path}: {text}");
        }
    }

    /// A source package's files named as ones that run at every start or
    /// configure the environment, wherever they lie outside tests and
    /// docs; not a `.pth` of paths only (setuptools' own), PyTorch weights,
    /// or the same names in a test tree.
    #[test]
    fn a_source_package_s_startup_and_configuration_files_are_found() {
        for (path, data) in [
            ("x-1/extra/x-init.pth", &b"import x._boot\n"[..]),
            (
                "x-1/extra/lib/python3.12/site-packages/x.pth",
                b"\xef\xbb\xbfimport\tx\n",
            ),
            ("x-1/a1_x.pth", b"# comment\nimport os; os.environ\n"),
            ("x-1/share/sitecustomize.py", b"import x\n"),
            ("x-1/extra/UserCustomize/__init__.py", b""),
            (
                "x-1/conf/pip.conf",
                b"[global]\nindex-url = https://x/simple\n",
            ),
            ("x-1/PIP.INI", b""),
            ("x-1/env/pyvenv.cfg", b"home = /usr/bin\n"),
            ("x-1/.condarc", b"channels: [x]\n"),
            ("x-1/tools/pip", b"#!/bin/sh\nexec python3 -m pip \"$@\"\n"),
            ("x-1/bin/Python3.12", b""),
            ("x-1/bin/sudo", b""),
            ("x-1/scripts/ssh-keygen.exe", b"MZ"),
            // In a test or docs tree, which a data mapping places as
            // readily (session 44).
            ("x-1/tests/sitecustomize.py", b"import x\n"),
            ("x-1/test/examples/import_smth.pth", b"import smth\n"),
            ("x-1/docs/pip.conf", b"[global]\n"),
            ("x-1/tests/fakessh/ssh", b"#!/usr/bin/env python\n"),
            // A completion script bash-completion runs for `git`.
            ("x-1/completions/git.bash", b"_git() { :; }\n"),
            ("x-1/share/completions/_ssh", b""),
            ("x-1/extra/share/fish/vendor_completions.d/ssh.fish", b""),
            ("x-1/extra/share/zsh/site-functions/_sudo", b""),
            ("x-1/extra/share/zsh/site-functions/compinit", b""),
            // Where conda, Jupyter, IPython and fish run a file by itself
            // (session 45).
            ("x-1/extra/share/fish/vendor_conf.d/x.fish", b""),
            ("x-1/extra/share/fish/vendor_functions.d/ls.fish", b""),
            ("x-1/vendor_functions.d/fish_prompt.fish", b""),
            ("x-1/fish/vendor_conf.d/x.fish", b""),
            ("x-1/extra/etc/jupyter/jupyter_server_config.py", b""),
            ("x-1/data/etc/ipython/ipython_config.py", b""),
            ("x-1/etc/conda/activate.d/x.sh", b""),
            ("x-1/extra/share/systemd/user/dbus.service", b""),
            ("x-1/data/lib/systemd/system/ssh.service.d/x.conf", b""),
            ("x-1/lib/udev/rules.d/99-x.rules", b""),
            ("x-1/extra/conda-meta/state", b"{\"env_vars\": {}}"),
            ("x-1/extra/etc/conda/env_vars.d/x.json", b"{}"),
            ("x-1/extra/etc/npmrc", b"node-options=--require ./x.js\n"),
            (
                "x-1/desktop/gnome-mimeapps.list",
                b"[Default Applications]\n",
            ),
            ("x-1/conf/npmrc", b"registry=https://x/\n"),
            ("x-1/cfg/ipython_config.json", b"{}"),
            ("x-1/extra/lib/python3.11/json/__init__.py", b""),
            ("x-1/comp/git.bash", b""),
            ("x-1/extra/share/jupyter/kernels/python3/kernel.json", b"{}"),
            ("x-1/k/python3/kernel.json", b"{}"),
            ("x-1/zsh/_ssh", b""),
            ("x-1/zsh/compinit", b""),
            // Named so in the docs too (until session 45 these were left
            // alone outside a completions folder).
            ("x-1/docs/git.bash", b""),
            ("x-1/cfg/jupyter_server_config.py", b"c = get_config()\n"),
            (
                "x-1/extra/share/applications/mimeapps.list",
                b"[Default Applications]\n",
            ),
            (
                "x-1/extra/share/dbus-1/services/org.freedesktop.secrets.service",
                b"",
            ),
        ] {
            assert!(startup_or_config_file(path, data).is_some(), "{path}");
        }
        for (path, data) in [
            ("x-1/distutils-precedence.pth", &b"src\n../lib\n"[..]),
            ("x-1/models/resnet.pth", b"PK\x03\x04\x00import x"),
            ("x-1/tests/data/paths.pth", b"../src\n"),
            ("x-1/completions/x-1.bash", b""),
            ("x-1/x/customize.py", b"import x\n"),
            ("x-1/conf/pip.conf.example", b"[global]\n"),
            (
                "x-1/src/x/activation/fish/activate.fish",
                b"function deactivate\n",
            ),
            ("x-1/bin/pip-tools", b""),
            ("x-1/x/pip.py", b""),
            ("x-1/extra/share/fish/vendor_functions.d/x-1.fish", b""),
            ("x-1/extra/etc/jupyter/jupyter_server_config.d/x.json", b""),
            ("x-1/fish/vendor_conf.d/README", b""),
            ("x-1/etc/conda/x.sh", b""),
            ("x-1/.npmrc", b"engine-strict=true\n"),
            ("x-1/js/npmrc.md", b""),
            ("x-1/doc/jupyter_lite_config.json", b"{}"),
            ("x-1/downstream/recipes/conda.bash", b"conda create -n x\n"),
            ("x-1/x/_git.py", b""),
            ("x-1/k/x/kernel.json", b"{}"),
            ("x-1/extra/lib/python3.11/site-packages/x/__init__.py", b""),
            ("x-1/lib/pythonista/x.py", b""),
            ("x-1/x/ipython_config_helper.py", b""),
            ("x-1/share/applications/x.desktop", b"[Desktop Entry]\n"),
            ("x-1/lib/x/__init__.py", b"import x\n"),
            ("x-1/lib/systemd.py", b""),
        ] {
            assert_eq!(startup_or_config_file(path, data), None, "{path}");
        }
    }

    /// Hatch's `force-include` renaming a document to a module, a `.pth`
    /// or a script; not one that keeps it a document, or code that stays
    /// code.
    #[test]
    fn documents_force_included_as_code_are_found() {
        let found =
            |text: &str| force_included_as_code(&Code::new("x-1/pyproject.toml", text.as_bytes()));
        assert_eq!(
            found("[tool.hatch.build.targets.wheel.force-include]\n\"notes/usage.txt\" = \"x/_compat.py\"\n\"CHANGES.md\" = \"/x/_c.py\"\n"),
            ["x-1/CHANGES.md", "x-1/notes/usage.txt"]
        );
        assert_eq!(
            found("[tool.hatch.build.force-include]\n\"data/s.json\" = \"x-init.pth\"\n"),
            ["x-1/data/s.json"]
        );
        assert_eq!(
            found("[tool.hatch.build.targets.wheel.shared-data]\n\"notes/u.txt\" = \"lib/python3.12/site-packages/x/_c.py\"\n\"share/x.1\" = \"share/man/man1/x.1\"\n"),
            ["x-1/notes/u.txt"]
        );
        for text in [
            "[tool.hatch.build.targets.wheel.force-include]\n\"../LICENSE\" = \"x/LICENSE\"\n\"LICENSE\" = \"x/LICENSE.txt\"\n",
            "[tool.hatch.build.targets.wheel.force-include]\n\"build/gen.py\" = \"x/gen.py\"\n\"data\" = \"x/data\"\n",
            "[tool.other.force-include]\n\"notes.txt\" = \"x/a.py\"\n",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
        assert!(force_included_as_code(&Code::new(
            "x-1/tests/pyproject.toml",
            b"[tool.hatch.build.force-include]\n\"n.txt\" = \"a.py\"\n"
        ))
        .is_empty());
    }

    /// The files a manifest makes its entry points, and the commands they
    /// declare: flake8 naming one that declares `pip`, from a `setup.cfg`
    /// or a `pyproject.toml`, was allowed before session 43.
    #[test]
    fn entry_point_files_are_named_and_read() {
        assert_eq!(
            entry_point_files(&Code::new(
                "x-1/setup.cfg",
                b"[options]\nentry_points = file: a.cfg, sub/b.ini\n"
            )),
            ["a.cfg", "sub/b.ini"]
        );
        assert_eq!(
            entry_point_files(&Code::new(
                "x-1/setup.cfg",
                b"[options]\nf = ep.ini\nentry_points = file: %(f)s\n"
            )),
            ["ep.ini"]
        );
        assert_eq!(
            entry_point_files(&Code::new("x-1/pyproject.toml", b"[project]\ndynamic = [\"scripts\"]\n[tool.setuptools.dynamic]\nentry-points = { file = [\"entry-points.ini\"] }\n")),
            ["entry-points.ini"]
        );
        assert_eq!(
            entry_point_files(&Code::new(
                "x-1/pyproject.toml",
                b"[tool.setuptools.dynamic]\nentry-points.file = \"ep.txt\"\n"
            )),
            ["ep.txt"]
        );
        for (path, text) in [
            (
                "x-1/setup.cfg",
                "[options]\nentry_points =\n    [console_scripts]\n    x = x:a\n",
            ),
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts = x = x:a\n",
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.dynamic]\ndependencies = { file = [\"requirements.txt\"] }\n",
            ),
            ("x-1/setup.py", "entry_points = 'file: ep.cfg'\n"),
        ] {
            assert!(
                entry_point_files(&Code::new(path, text.as_bytes())).is_empty(),
                "{text}"
            );
        }
        assert_eq!(
            in_entry_point_file(b"[console_scripts]\nx = x:a\n  pip = x:main\n"),
            Some((3, MANIFEST_COMMAND))
        );
        assert_eq!(
            in_entry_point_file(b"[x.plugins]\npip = x:a\n[ gui_scripts ]\nbash = %(t)s\n"),
            Some((4, MANIFEST_SYSTEM_COMMAND))
        );
        assert_eq!(
            in_entry_point_file(b"[console_scripts]\nx = x:a\n[x.plugins]\npip = x:b\n"),
            None
        );
    }

    #[test]
    fn npm_commands_over_the_toolchain_are_found() {
        let bins = |v: serde_json::Value| npm_bins_over_toolchain(&v);
        assert_eq!(
            bins(
                serde_json::json!({"name": "x", "bin": {"x": "cli.js", "node": "run.js", "NPX": "b.js"}})
            ),
            ["NPX", "node"]
        );
        assert_eq!(
            bins(serde_json::json!({"name": "@evil/npm", "bin": "cli.js"})),
            ["npm"]
        );
        // The toolchain's own packages are not exempt: a tarball installs
        // under the dependency's name, whatever its package.json says.
        assert_eq!(
            bins(serde_json::json!({"name": "yarn", "bin": {"yarn": "bin/yarn.js"}})),
            ["yarn"]
        );
        for ordinary in [
            serde_json::json!({"name": "x", "bin": {"x": "cli.js", "node-gyp": "g.js", "nodemon": "m.js"}}),
            serde_json::json!({"name": "shx", "bin": "cli.js"}),
            serde_json::json!({"name": "x", "main": "node.js"}),
        ] {
            assert!(bins(ordinary.clone()).is_empty(), "{ordinary}");
        }
        let dir = |path: &str, v: serde_json::Value| npm_bin_dir(path, &v);
        assert_eq!(
            dir(
                "package/package.json",
                serde_json::json!({"directories": {"bin": "./bin"}})
            ),
            Some("package/bin".to_string())
        );
        assert_eq!(
            dir(
                "package/package.json",
                serde_json::json!({"bin": {}, "directories": {"bin": "bin"}})
            ),
            None
        );
        assert_eq!(
            dir(
                "package/package.json",
                serde_json::json!({"directories": {"bin": "../.."}})
            ),
            None
        );
        assert!(
            toolchain_command("node.cmd")
                && toolchain_command("Bash")
                && toolchain_command("git")
                && toolchain_command("SUDO.cmd")
                && !toolchain_command("nodes")
                && !toolchain_command("git-cz")
        );
    }

    #[test]
    fn other_distributions_packages_are_found_wherever_pip_writes_them() {
        for path in [
            "certifi/cacert.pem",
            "Certifi/cacert.pem",
            "a-1.data/purelib/certifi/cacert.pem",
            "a-1.data/data/lib/python3.12/site-packages/certifi/cacert.pem",
            "a-1.data/data/Lib/site-packages/certifi/core.py",
            "a-1.data/data/lib/python3.11/dist-packages/certifi/cacert.pem",
            "a-1.data/data/lib64/python3.12/site-packages/certifi/core.py",
        ] {
            assert_eq!(owner_of(path).map(|o| o.0), Some("certifi"), "{path}");
        }
        assert_eq!(
            owner_of("pkg_resources/__init__.py").map(|o| o.0),
            Some("setuptools")
        );
        assert_eq!(
            owner_of("pip/_internal/cli/main.py").map(|o| o.0),
            Some("pip")
        );
        // ipykernel's kernelspec, the one Jupyter starts for Python.
        assert_eq!(
            owner_of("a-1.data/data/share/jupyter/kernels/Python3/kernel.json").map(|o| o.0),
            Some("ipykernel")
        );
        for path in [
            "certifi.py",
            "mypkg/certifi/cacert.pem",
            "pip_tools/x.py",
            "a-1.data/scripts/pip",
            "a-1.data/data/share/certifi/cacert.pem",
            "a-1.data/data/share/jupyter/kernels/python3-x/kernel.json",
            "share/jupyter/kernels/python3/kernel.json",
        ] {
            assert_eq!(owner_of(path), None, "{path}");
        }
    }

    #[test]
    fn manifests_of_ordinary_packages_are_not_placements() {
        for (path, text) in [
            // Other distributions' own commands and ordinary data files.
            (
                "pip_tools-7/pyproject.toml",
                "[project.scripts]\npip-compile = \"piptools.scripts.compile:cli\"\n",
            ),
            (
                "sympy-1/setup.py",
                "setup(entry_points={'console_scripts': ['isympy = isympy:main']},\n      data_files=[('share/man/man1', ['doc/man/isympy.1'])])\n",
            ),
            (
                "pandas-3/pyproject.toml",
                "[tool.setuptools.data-files]\n\"share/pandas\" = [\"LICENSE\"]\n[tool.ruff]\nline-length = 88\n",
            ),
            ("x-1/setup.cfg", "[flake8]\nmax-line-length = 88\n[tool:pytest]\naddopts = -ra\n"),
            // An entry point in another group (babel's extractors).
            (
                "babel-2.18.0/setup.py",
                "setup(entry_points=\"\"\"\n    [console_scripts]\n    pybabel = babel.messages.frontend:main\n\n    [babel.extractors]\n    python = babel.messages.extract:extract_python\n    \"\"\",)\n",
            ),
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts =\n    x = x.cli:main\nbabel.extractors =\n    python = x.extract:run\n",
            ),
            (
                "x-1/setup.py",
                "setup(entry_points={'console_scripts': ['x = x:a'], 'x.plugins': ['pip = x:plugin']})\n",
            ),
            // Script files of the package's own names.
            (
                "x-1/setup.py",
                "setup(scripts=['bin/x-pip', 'bin/pythonista'], entry_points={'console_scripts': ['x = x:main']})\n",
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools]\nscript-files = [\"bin/x\"]\n[tool.hatch.build.targets.wheel.shared-scripts]\n\"bin/pip\" = \"x-pip\"\n",
            ),
            // A callable without its colon: pip refuses to install it.
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts =\n    pip = x.cli\n",
            ),
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts = pip = x.cli, x = x:a\n",
            ),
            // Ordinary commands in the forms setuptools reads, and
            // interpolation that builds nothing of the kind.
            (
                "x-1/setup.cfg",
                "[options.entry_points]\nconsole_scripts = x = x.cli:main, x-pip = x.cli:pip\n",
            ),
            (
                "x-1/setup.cfg",
                "[metadata]\nname = x\n[options]\nbase = x\ninstall_requires = %(base)s-core\npackage_dir =\n    =src\n[options.data_files]\nshare/man/man1 =\n    doc/x.1\n",
            ),
            (
                "x-1/pyproject.toml",
                "[tool.setuptools.data-files]\n\"share/x\" = [\n    \"LICENSE\",\n]\n[tool.x]\npattern = \"\\\\d+\\\\.pth?\"\n",
            ),
            // Jupyter extensions map their JSON settings and kernelspecs.
            (
                "jupyterlab-4/pyproject.toml",
                "[tool.hatch.build.targets.wheel.shared-data]\n\"jupyter-config/jupyter_server_config.d\" = \"etc/jupyter/jupyter_server_config.d\"\n\"kernel\" = \"share/jupyter/kernels/x\"\n",
            ),
            // A man page, an icon, and systemd and D-Bus words outside
            // their folders.
            (
                "x-1/setup.py",
                "setup(data_files=[('share/man/man1', ['x.1']), ('share/icons', ['x.png']), ('share/x/tmpfiles.d', ['x.conf'])], keywords=['systemd', 'dbus-1', 'udev/rules.d'])\n",
            ),
            // site-packages and dist-packages are not the standard library.
            (
                "x-1/setup.cfg",
                "[options.data_files]\nlib/python3.12/site-packages = x/x.txt\nlib/python3/dist-packages/x = x/y.txt\n",
            ),
            (
                "x-1/setup.py",
                "# see /usr/lib/pythonista/ and mylib/python3.11/x\n# built on /usr/lib/python3.11\nsetup(name='x')\n",
            ),
            // A JavaScript front end's own `.npmrc`, left out or kept.
            (
                "x-1/pyproject.toml",
                "[tool.hatch.build.targets.sdist]\nexclude = [\".npmrc\", \"etc/x\"]\n[tool.x]\nnpmrc = \"js/.npmrc\"\n",
            ),
            (
                "x-1/setup.py",
                "setup(data_files=[('etc', ['.npmrc'])])\n",
            ),
            // Names that only look like start-up files.
            (
                "x-1/pyproject.toml",
                "[tool.x]\npath = \"src\"\ndepth = 3\nsites = [\"customize.md\"]\nnote = \"see .pth docs\"\n",
            ),
            // The same words where no installer reads them.
            ("x-1/README.md", "Put this in pip.conf; or run `pip = x:main`.\n"),
            ("x-1/x/cli.py", "CONFIG = 'pip.conf'\n"),
        ] {
            assert_eq!(in_manifest(&Code::new(path, text.as_bytes())), None, "{path}: {text}");
        }
    }

    /// What real wheels install: jupyterlab's and notebook's
    /// `data/etc/jupyter` and `data/share`, ruff's, uv's and maturin's
    /// commands, argcomplete's `activate-global-python-argcomplete`,
    /// setuptools' path-only `.pth` files, and the same names where pip does
    /// not give them their meaning.
    #[test]
    fn what_packages_install_for_themselves_is_not_a_placement() {
        for (path, data) in [
            (
                "jupyterlab-4.6.6.data/data/etc/jupyter/jupyter_server_config.d/jupyterlab.json",
                "",
            ),
            (
                "jupyterlab-4.6.6.data/data/share/applications/jupyterlab.desktop",
                "",
            ),
            ("ruff-0.17.6.data/scripts/ruff", ""),
            ("uv-0.13.9.data/scripts/uvx", ""),
            (
                "argcomplete-3.6.data/scripts/activate-global-python-argcomplete",
                "",
            ),
            (
                "argcomplete-3.6.data/scripts/python-argcomplete-check-easy-install-script",
                "",
            ),
            ("a-1.data/scripts/pipx", ""),
            ("a-1.data/data/bin/mytool", ""),
            ("a-1.data/data/share/pip.conf", ""),
            ("a-1.data/headers/pip.conf", ""),
            ("pkg/pip.conf", ""),
            ("pkg/sitecustomize.py", ""),
            ("pkg/hook.pth", "import x\n"),
            ("paths.pth", "./vendor\n# import x\n"),
            ("indented.pth", "  import x\n"),
            ("a-1.data/data/lib/python3.12/site-packages/pkg/x.py", ""),
            ("a-1.data/data/lib/pythonista/x.txt", ""),
            ("a-1.data/data/etc/conda/env.sh", ""),
        ] {
            assert_eq!(in_wheel(path, data.as_bytes()), None, "{path}");
        }
    }
}
