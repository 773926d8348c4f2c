/**
 * The guard of a pytest run: gitgood's `sitecustomize.py`, first on the run's PYTHONPATH, which Python
 * imports at start-up, before pytest, any plug-in, conftest or module of the project.
 *
 * In the process gitgood started for the run (`GITGOOD_RESULTS_FD=3` and a command line that runs pytest),
 * it reads the run's key (32 random bytes gitgood writes to the results socket, file descriptor 3, and
 * keeps nowhere else), moves the socket to a high, non-inheritable descriptor, imports the pytest
 * internals that decide an outcome and gitgood's results plug-in, notes their identities, and installs an
 * audit hook (PEP 578: no Python code can remove one). The key and the socket live only in that hook's
 * closure, which Python code reaches only through gc's object walks, other threads' frames, memory access
 * through ctypes or `/proc/self/mem`: the hook ends the run on each of these when it comes from the
 * project's code (a file of the work tree that is not a test or conftest), so the key is never read.
 *
 * Every line on the channel is written by the hook, numbered and signed with the key (HMAC-SHA256): a line
 * anyone else writes to the socket fails the check in gitgood. The plug-in hands its lines to the hook
 * through an audit event; the hook takes them only from the plug-in's own sender called by the plug-in's
 * own functions, with no frame of the project's code on the stack (a forged call from the project is a
 * tamper line instead). Before each result it compares the pytest and pluggy functions that decide an
 * outcome with the ones it noted (a replacement is a tamper line). Ending the run writes a tamper line and
 * leaves with exit status 70: the run then has no end line, and nothing counts.
 */
const GUARD_SOURCE = String.raw`"""gitgood's guard for a pytest run (written by gitgood; do not edit)."""


def _gitgood_guard():
    import os
    import sys

    def runs_pytest(argv):
        i = 1
        while i < len(argv):
            arg = argv[i]
            if arg == "-m":
                return i + 1 < len(argv) and argv[i + 1] in ("pytest", "py.test")
            if arg in ("-X", "-W"):
                i += 2
                continue
            if arg.startswith("-"):
                if arg == "-c":
                    return False
                i += 1
                continue
            return os.path.basename(arg) in ("pytest", "py.test")
        return False

    if os.environ.get("GITGOOD_RESULTS_FD") != "3" or not runs_pytest(getattr(sys, "orig_argv", [])):
        return
    del os.environ["GITGOOD_RESULTS_FD"]
    import fcntl
    import stat
    import types
    import _ctypes
    import _hashlib

    try:
        if not stat.S_ISSOCK(os.fstat(3).st_mode):
            return
        key = b""
        while len(key) < 32:
            chunk = os.read(3, 32 - len(key))
            if not chunk:
                return
            key += chunk
        fd = fcntl.fcntl(3, fcntl.F_DUPFD_CLOEXEC, 517)
        os.close(3)
    except OSError:
        return

    watched = (
        "_pytest.runner:call_and_report",
        "_pytest.runner:call_runtest_hook",
        "_pytest.runner:runtestprotocol",
        "_pytest.runner:check_interactive_exception",
        "_pytest.runner:CallInfo.from_call",
        "_pytest.reports:TestReport.from_item_and_call",
        "_pytest.reports:TestReport.__init__",
        "_pytest.reports:BaseReport.passed",
        "_pytest.reports:BaseReport.failed",
        "_pytest.python:Function.runtest",
        "_pytest.python:pytest_pyfunc_call",
        "_pytest.unittest:TestCaseFunction.runtest",
        "_pytest.skipping:pytest_runtest_makereport",
        "_pytest.terminal:TerminalReporter.pytest_runtest_logreport",
        "pluggy._callers:_multicall",
        "pluggy._hooks:HookCaller.__call__",
        "pluggy._manager:PluginManager._hookexec",
    )
    for name in sorted({w.partition(":")[0] for w in watched}):
        try:
            __import__(name)
        except Exception:
            pass
    try:
        import _gitgood_results as plugin
    except Exception:
        return

    # Each step of each watched name: (the live namespace it is found in, its key there, what it is now).
    seen = {}
    for dotted in watched:
        module, _, rest = dotted.partition(":")
        obj = sys.modules.get(module)
        for part in rest.split("."):
            space = getattr(obj, "__dict__", None)
            if space is None or space.get(part) is None:
                break
            seen.setdefault((id(space), part), (space, part, space[part], dotted))
            obj = space[part]
    links = tuple(seen.values())

    function = types.FunctionType
    sender = plugin._send.__code__
    senders = frozenset(v.__code__ for v in vars(plugin).values() if type(v) is function and v.__module__ == plugin.__name__)
    source_to_code = sys.modules["_frozen_importlib_external"].SourceLoader.source_to_code.__code__
    digest = _hashlib.hmac_digest
    write = os.write
    leave = os._exit
    getframe = sys._getframe
    modules = sys.modules
    cwd = os.getcwd()
    sep = os.sep
    roots = tuple(sorted({cwd + sep, os.path.realpath(cwd) + sep}))
    harness = frozenset(("_pytest", "pytest", "pluggy", "_gitgood_results", "sitecustomize"))
    swapped = frozenset(("__code__", "__defaults__", "__kwdefaults__", "__globals__"))
    memory_calls = frozenset((_ctypes._memmove_addr, _ctypes._memset_addr, _ctypes._string_at_addr, _ctypes._cast_addr, getattr(_ctypes, "_wstring_at_addr", 0)))
    reaching = frozenset(("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "sys.settrace", "sys.setprofile",
                          "ctypes.cdata", "ctypes.PyObj_FromPtr", "ctypes.string_at", "ctypes.wstring_at"))
    handled = reaching | frozenset(("gitgood.results", "object.__setattr__", "object.__delattr__", "ctypes.dlsym", "ctypes.call_function", "open", "compile", "code.__new__"))
    count = [0]
    said = set()

    def put(fields):
        body = ("%d\t" % count[0] + "\t".join(str(f).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n") for f in fields)).encode("utf-8", "replace")
        count[0] += 1
        line = digest(key, body, "sha256").hex().encode() + b"\t" + body + b"\n"
        try:
            while line:
                line = line[write(fd, line):]
        except OSError:
            pass

    def tamper(why):
        if why not in said:
            said.add(why)
            put(("tamper", why))

    def place(filename):
        # The work-tree path of a file of the project's code (not a test, not a conftest), else None.
        if type(filename) is not str:
            return None
        for root in roots:
            if filename.startswith(root):
                rel = filename[len(root):]
                parts = rel.split(sep)
                name = parts[-1]
                if "tests" in parts[:-1] or "test" in parts[:-1] or name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
                    return None
                return rel
        return None

    def in_tree(filename):
        return type(filename) is str and any(filename.startswith(root) for root in roots)

    def project_frame(frame):
        # The first frame from the project's code on the stack from frame down, else None.
        while frame is not None:
            rel = place(frame.f_code.co_filename)
            if rel is not None:
                return rel
            frame = frame.f_back
        return None

    def stop(why):
        tamper(why + " (the run was ended)")
        leave(70)

    def hook(event, args):
        # Called through guarded: the frame that raised the event is two below this one.
        if event == "gitgood.results":
            caller = getframe(2)
            by = caller.f_back
            rel = project_frame(caller)
            if caller.f_code is not sender or by is None or by.f_code not in senders or rel is not None:
                tamper("a result was sent from outside gitgood's plug-in" + (" (from " + rel + ")" if rel else ""))
                return
            if not all(type(a) is str for a in args) or not args:
                return
            if args[0] in ("phase", "end"):
                for space, name, original, dotted in links:
                    if space.get(name) is not original:
                        tamper("pytest's " + dotted + " was replaced during the run")
            put(args)
            return
        if event == "object.__setattr__" or event == "object.__delattr__":
            if len(args) >= 2 and type(args[1]) is str and args[1] in swapped and type(args[0]) is function:
                module = args[0].__module__
                if type(module) is str and module.partition(".")[0] in harness:
                    stop("the " + args[1] + " of " + module + "." + str(args[0].__qualname__) + " was replaced")
            return
        # What the event would reach, if the project's code asked for it (checked first: most events are not).
        what = None
        if event in reaching:
            what = event
        elif event == "ctypes.dlsym":
            name = args[1] if len(args) > 1 and type(args[1]) is str else ""
            if name.lstrip("_").startswith("Py") or name in ("process_vm_readv", "process_vm_writev", "ptrace"):
                what = "ctypes.dlsym(" + name + ")"
        elif event == "ctypes.call_function":
            if len(args) > 0 and type(args[0]) is int and args[0] in memory_calls:
                what = "ctypes' memory access"
        elif event == "open":
            path = args[0] if len(args) > 0 else None
            if type(path) is bytes:
                path = path.decode("utf-8", "replace")
            if type(path) is str and path.startswith("/proc/") and (path.endswith("/mem") or path.endswith("/environ")):
                what = "open(" + path + ")"
        elif event == "compile" or event == "code.__new__":
            # Code given a file name outside the work tree would pass on the stack for the harness's.
            filename = args[1] if len(args) > 1 else None
            if type(filename) is bytes:
                filename = filename.decode("utf-8", "replace")
            if type(filename) is str and filename.startswith(sep) and not in_tree(filename):
                loader = getframe(2).f_back
                if not (event == "compile" and loader is not None and loader.f_code is source_to_code):
                    what = event + " of code named " + filename
        if what is None:
            return
        rel = project_frame(getframe(2))
        if rel is None and event in ("sys.settrace", "sys.setprofile"):
            # A thread the project started, traced through threading.settrace: the function is the project's.
            threading = modules.get("threading")
            space = getattr(threading, "__dict__", None) if threading is not None else None
            for name in ("_trace_hook", "_profile_hook"):
                fn = space.get(name) if type(space) is dict else None
                if rel is None and type(fn) is function:
                    rel = place(fn.__code__.co_filename)
        if rel is not None:
            stop(what + " called from " + rel + " (the project's code)")

    def guarded(event, args):
        if event in handled:
            try:
                hook(event, args)
            except Exception:
                pass

    sys.addaudithook(guarded)
    put(("start", "1"))


_gitgood_guard()
del _gitgood_guard


def _chain():
    # The sitecustomize this one stands in front of (the interpreter's or the environment's), if any.
    import importlib.machinery
    import importlib.util
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != here])
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_chain()
del _chain
`;

/** The guard's source (`sitecustomize.py`), for pluginDir and the docs. */
export function guardSource(): string {
  return GUARD_SOURCE;
}
