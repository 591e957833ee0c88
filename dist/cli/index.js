#!/usr/bin/env node
import { createRequire as __WEBPACK_EXTERNAL_createRequire } from "module";
/******/ var __webpack_modules__ = ({

/***/ 5242:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   dD: () => (/* binding */ escapeLogText),
/* harmony export */   tn: () => (/* binding */ formatAnnotation)
/* harmony export */ });
/* unused harmony exports InputError, inputVariableName, getInput, getBooleanInput, getListInput, getChoiceInput, FileCommandError, setOutput, appendStepSummary, escapeData, escapeProperty, formatGroupStart, formatMask */
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(7598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__nccwpck_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var _display_text_js__WEBPACK_IMPORTED_MODULE_2__ = __nccwpck_require__(1849);
// The Actions runner's protocol, as an action sees it: inputs (`INPUT_<NAME>` variables),
// file commands (step outputs in GITHUB_OUTPUT, the job summary in GITHUB_STEP_SUMMARY)
// and workflow commands on stdout (annotations, masks, groups), with the runner's escaping
// rules. Written here rather than taken from @actions/core (see README.md).



// Inputs.
class InputError extends Error {
    input;
    constructor(input, message) {
        super(`input ${(0,_display_text_js__WEBPACK_IMPORTED_MODULE_2__/* .quote */ .h)(input)}: ${message}`);
        this.input = input;
        this.name = 'InputError';
    }
}
/** The variable of an input: its name upper-cased, spaces turned to underscores (dashes kept). */
function inputVariableName(name) {
    return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}
function getInput(env, name, options = {}) {
    const value = (env[inputVariableName(name)] ?? '').trim();
    if (options.required && value === '')
        throw new InputError(name, 'is required and was not given');
    return value;
}
/** YAML 1.2 core booleans, as the Actions toolkit accepts them. */
function getBooleanInput(env, name, fallback) {
    const value = getInput(env, name);
    if (value === '')
        return fallback;
    if (['true', 'True', 'TRUE'].includes(value))
        return true;
    if (['false', 'False', 'FALSE'].includes(value))
        return false;
    throw new InputError(name, `must be true or false, not ${quote(value)}`);
}
/** A list given one item per line or separated by commas; empty items dropped. */
function getListInput(env, name) {
    return getInput(env, name)
        .split(/[\n,]/)
        .map((item) => item.trim())
        .filter((item) => item !== '');
}
function getChoiceInput(env, name, choices, fallback) {
    const value = getInput(env, name);
    if (value === '')
        return fallback;
    if (!choices.includes(value))
        throw new InputError(name, `must be one of ${choices.join(', ')}, not ${quote(value)}`);
    return value;
}
// File commands. Outputs use the heredoc form with a random delimiter, so any value,
// multi-line JSON included, arrives intact.
class FileCommandError extends (/* unused pure expression or super */ null && (Error)) {
}
function setOutput(env, name, value) {
    const file = env.GITHUB_OUTPUT;
    if (!file)
        throw new FileCommandError(`cannot set output "${name}": GITHUB_OUTPUT is not set (not running in GitHub Actions?)`);
    const delimiter = `ghadelimiter_${randomUUID()}`;
    if (name.includes(delimiter) || value.includes(delimiter))
        throw new FileCommandError(`output "${name}" contains its delimiter`);
    appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`, 'utf8');
}
function appendStepSummary(env, markdown) {
    const file = env.GITHUB_STEP_SUMMARY;
    if (!file)
        return false;
    appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`, 'utf8');
    return true;
}
function escapeData(text) {
    return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(text) {
    return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
/**
 * An annotation command. The message is shown in the log line by line (`##[error]...`), so
 * its lines are escaped as log text; title and file have their control characters escaped.
 */
function formatAnnotation(annotation) {
    const properties = [];
    if (annotation.file)
        properties.push(`file=${escapeProperty((0,_display_text_js__WEBPACK_IMPORTED_MODULE_2__/* .escapeControls */ .U)(annotation.file))}`);
    if (annotation.line !== undefined)
        properties.push(`line=${annotation.line}`);
    if (annotation.column !== undefined)
        properties.push(`col=${annotation.column}`);
    if (annotation.title)
        properties.push(`title=${escapeProperty((0,_display_text_js__WEBPACK_IMPORTED_MODULE_2__/* .escapeControls */ .U)(annotation.title))}`);
    const head = properties.length > 0 ? `${annotation.level} ${properties.join(',')}` : annotation.level;
    return `::${head}::${escapeData(escapeLogText(annotation.message))}\n`;
}
/** A group's opening line; the title has its control characters escaped. */
function formatGroupStart(title) {
    return `::group::${escapeData(escapeControls(title))}\n`;
}
// How the runner finds workflow commands in what an action prints (actions/runner, read at
// commit 258d6c857, net8.0):
//   - Lines: src/Runner.Sdk/ProcessInvoker.cs reads stdout and stderr with .NET's
//     StreamReader.ReadLine, which ends a line at LF, CRLF or a lone CR, and at nothing else
//     (U+0085, U+2028 and U+2029 do not end a line; String.ReplaceLineEndings would, but the
//     runner does not use it).
//   - src/Runner.Worker/Handlers/OutputManager.cs OnDataReceived hands a line that contains
//     `##[` or `::` to ActionCommandManager.TryProcessCommand
//     (src/Runner.Worker/ActionCommandManager.cs), which tries ActionCommand.TryParseV2 and
//     then ActionCommand.TryParse (src/Runner.Common/ActionCommand.cs):
//   - TryParseV2 (`::name props::data`): `message.TrimStart()`, then the line must start
//     with `::`, a second `::` must follow, and the text from index 2 up to the first space
//     must be a registered command name (compared OrdinalIgnoreCase). TrimStart removes
//     what Char.IsWhiteSpace calls whitespace (dotnet/runtime, System.Private.CoreLib
//     src/System/Char.cs: IsWhiteSpaceLatin1, then the Unicode White_Space property):
//     U+0009-U+000D, U+0020, U+0085 (NEL), U+00A0,
//     and the Unicode categories Zs, Zl (U+2028), Zp (U+2029); not U+001C-U+001F (JavaScript's
//     `\s` does not have them either) and not U+FEFF (which `\s` has). JavaScript's `\s`
//     lacks U+0085: a line "\u0085::stop-commands::x" is a command for the runner.
//   - TryParse (the older `##[name props]data`): `message.IndexOf("##[")` anywhere in the
//     line, then `]`, the name read from just after `##[`.
//   StartsWith and IndexOf are culture-sensitive there (ICU), so characters that collation
//   ignores (U+200B, U+00AD...) are skipped when the runner matches `::` and `##[`; but the
//   name is then read at a fixed offset (2 after the trimmed start, 3 after the `##[`
//   found), so a match that spans an ignorable character reads a name that starts with `:`,
//   `#`, `[` or that character, which no command has. What starts a command is therefore an
//   exact `::` at the start of the trimmed line, or an exact `##[` anywhere.
//
// escapeLogText breaks both with a zero-width space (readable, and plain text for the
// runner): after the first `:` of a line whose first character that is not whitespace (by
// the runner's rule or JavaScript's), a control or a format character is `:`, and between
// the `#`s of every `##[`. Control characters and separators are shown escaped first
// (../display-text.ts), so no lone CR can start a line the runner splits off and no NEL
// can precede a command.
const COMMAND_START = /^([\s\u0085\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Cf}]*):/u;
/**
 * Plain text made safe to print as log lines: a cluster or object name that the pull
 * request's author chose could otherwise print `::stop-commands::`, after which every
 * later `::add-mask::` is shown verbatim, forge `::error` annotations, or colour and
 * overwrite the log with ANSI sequences. Control characters are shown escaped (a lone CR,
 * where the runner would split, among them), and each line is checked by the runner's own
 * rule above.
 */
function escapeLogText(text) {
    return (0,_display_text_js__WEBPACK_IMPORTED_MODULE_2__/* .escapeControls */ .U)(text)
        .split('\n')
        .map((line) => line.replace(COMMAND_START, '$1:\u200b').replace(/##\[/g, '#\u200b#['))
        .join('\n');
}
function formatMask(secret) {
    return `::add-mask::${escapeData(secret)}\n`;
}


/***/ }),

/***/ 4632:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   Cq: () => (/* binding */ cancellationOnSignals),
/* harmony export */   pL: () => (/* binding */ CANCELLED_EXIT_CODE),
/* harmony export */   zg: () => (/* binding */ cancellationOf)
/* harmony export */ });
/* unused harmony exports RunCancelled, Cancellation, abortedAfterCancel */
// A run's cancellation by a signal. Ctrl-C sends SIGINT; GitHub cancels a step (a newer
// merge with `concurrency: cancel-in-progress`, or the Cancel button) with SIGINT, then
// SIGTERM about 7.5 s later, then SIGKILL. Work that can stop cleanly (a rollout: start
// nothing new, let the object being applied finish, write Timoni's records of what was
// applied, report) runs inside `whileGraceful`: the first SIGINT or SIGTERM then aborts
// `signal`, whose reason is a RunCancelled naming the signal, and the work ends by itself.
// A second signal stops the process at once with exit code 130. Outside graceful work the
// process does not listen to these signals at all, so that their default (the process ends
// at once) holds, even while a CUE evaluation holds the event loop: a diff has nothing to
// finish.
/** The exit code of a run stopped by a signal (128 + SIGINT's number, as shells report Ctrl-C). */
const CANCELLED_EXIT_CODE = 130;
/** The abort reason of a cancelled run: which signal cancelled it. */
class RunCancelled extends Error {
    signalName;
    name = 'RunCancelled';
    constructor(signalName) {
        super(`the run was cancelled (${signalName})`);
        this.signalName = signalName;
    }
}
/** The RunCancelled of an aborted signal, if it was aborted by a cancellation. */
function cancellationOf(signal) {
    return signal?.aborted && signal.reason instanceof RunCancelled ? signal.reason : undefined;
}
class Cancellation {
    outlets;
    source;
    controller = new AbortController();
    graceful = 0;
    constructor(outlets, source) {
        this.outlets = outlets;
        this.source = source;
    }
    /** Aborted by the first signal received inside graceful work; its reason is a RunCancelled. */
    get signal() {
        return this.controller.signal;
    }
    get cancelled() {
        return cancellationOf(this.controller.signal);
    }
    /** Runs work that ends cleanly once `signal` aborts; a signal received outside such work stops the process at once. */
    async whileGraceful(work) {
        const release = this.hold();
        try {
            return await work();
        }
        finally {
            release();
        }
    }
    /** The same as whileGraceful, from now until the function returned is called. */
    hold() {
        this.graceful += 1;
        if (this.graceful === 1)
            this.source?.listen((name) => this.receive(name));
        let released = false;
        return () => {
            if (released)
                return;
            released = true;
            this.graceful -= 1;
            if (this.graceful === 0)
                this.source?.stopListening();
        };
    }
    /** A signal arrived (the process's handler calls this). */
    receive(signalName) {
        const first = this.cancelled;
        if (first) {
            this.outlets.stopNow(`received ${signalName} after ${first.signalName}: stopped at once; the cluster being applied may be left with its objects applied and Timoni's instance record not written`);
            return;
        }
        if (this.graceful === 0) {
            this.outlets.stopNow(`received ${signalName}: stopped`);
            return;
        }
        this.outlets.notice(`received ${signalName}: cancelling the run: nothing new is started, the object being applied finishes, Timoni's records of what was applied are written, then the report (send a second signal to stop at once)`);
        this.controller.abort(new RunCancelled(signalName));
    }
}
const SIGNALS = ['SIGINT', 'SIGTERM'];
/** A Cancellation fed by this process's SIGINT and SIGTERM while graceful work runs (which then do not end the process by themselves). */
function cancellationOnSignals(outlets) {
    const handlers = new Map();
    return new Cancellation(outlets, {
        listen: (receive) => {
            for (const name of SIGNALS) {
                const handler = () => receive(name);
                handlers.set(name, handler);
                process.on(name, handler);
            }
        },
        stopListening: () => {
            for (const [name, handler] of handlers)
                process.off(name, handler);
            handlers.clear();
        },
    });
}
/**
 * A signal that aborts `afterMs` after `cancel` does (never, if it never does): a bound on
 * what is left to do once the run is cancelled, such as publishing its report.
 */
function abortedAfterCancel(cancel, afterMs) {
    const bound = new AbortController();
    const start = () => {
        const timer = setTimeout(() => bound.abort(new Error(`no time left: the run was cancelled ${Math.round(afterMs / 100) / 10} s ago`)), afterMs);
        timer.unref();
    };
    if (cancel.aborted)
        start();
    else
        cancel.addEventListener('abort', start, { once: true });
    return bound.signal;
}


/***/ }),

/***/ 5581:
/***/ ((module, __unused_webpack___webpack_exports__, __nccwpck_require__) => {

__nccwpck_require__.a(module, async (__webpack_handle_async_dependencies__, __webpack_async_result__) => { try {
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(3024);
/* harmony import */ var node_fs__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__nccwpck_require__.n(node_fs__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var _action_runner_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(5242);
/* harmony import */ var _cancellation_js__WEBPACK_IMPORTED_MODULE_2__ = __nccwpck_require__(4632);
/* harmony import */ var _cli_io_js__WEBPACK_IMPORTED_MODULE_3__ = __nccwpck_require__(1604);
/* harmony import */ var _cli_run_js__WEBPACK_IMPORTED_MODULE_4__ = __nccwpck_require__(3078);
// The command-line entry point, `timoni-fleet`. The process ends as soon as the command is
// done and its output flushed: the CUE engine's Go runtime keeps timers of its own (its
// garbage collector's background work) that would otherwise hold the process for about a
// second after the last result.
// SIGINT and SIGTERM: an apply stops cleanly on the first one and exits 130; a second one,
// or one during any other command, stops the process at once (cancellation.ts).





const io = (0,_cli_io_js__WEBPACK_IMPORTED_MODULE_3__/* .processIO */ .W)();
const cancellation = (0,_cancellation_js__WEBPACK_IMPORTED_MODULE_2__/* .cancellationOnSignals */ .Cq)({
    notice: (text) => io.stderr(`⏹ ${text}\n`),
    stopNow: (text) => {
        (0,node_fs__WEBPACK_IMPORTED_MODULE_0__.writeSync)(2, (0,_action_runner_js__WEBPACK_IMPORTED_MODULE_1__/* .escapeLogText */ .dD)(`⏹ ${text}\n`));
        process.exit(_cancellation_js__WEBPACK_IMPORTED_MODULE_2__/* .CANCELLED_EXIT_CODE */ .pL);
    },
});
const code = await (0,_cli_run_js__WEBPACK_IMPORTED_MODULE_4__/* .runCli */ .a)(process.argv.slice(2), { ...io, cancellation });
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));

__webpack_async_result__();
} catch(e) { __webpack_async_result__(e); } }, 1);

/***/ }),

/***/ 1604:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   W: () => (/* binding */ processIO),
/* harmony export */   n: () => (/* binding */ CliLog)
/* harmony export */ });
/* harmony import */ var _action_runner_js__WEBPACK_IMPORTED_MODULE_0__ = __nccwpck_require__(5242);
/* harmony import */ var _display_text_js__WEBPACK_IMPORTED_MODULE_1__ = __nccwpck_require__(1849);
// What a command reads and writes (CommandIO, passed in so that tests run commands
// in-process), and the fleet commands' progress on stderr (CliLog).


/**
 * The process's own streams. stderr carries what a person reads (progress, errors, names and
 * messages from the user's files): it is written by the action log's rule (escapeLogText),
 * control characters shown escaped so that no ANSI sequence from a value colours or
 * overwrites the terminal, and no line read as a workflow command when the CLI runs in a
 * workflow step. stdout carries data (YAML, JSON, diffs) that may be piped or redirected:
 * it is kept byte for byte, and only on a terminal are its control characters shown
 * escaped (escapeControls, the first half of the same rule; the second, a zero-width space
 * in a `::` or `##[`, concerns the runner only and would end up in what is copied from the
 * terminal).
 */
function processIO() {
    const stdoutIsTerminal = process.stdout.isTTY === true;
    return {
        cwd: process.cwd(),
        env: process.env,
        stdout: (text) => process.stdout.write(stdoutIsTerminal ? (0,_display_text_js__WEBPACK_IMPORTED_MODULE_1__/* .escapeControls */ .U)(text) : text),
        stderr: (text) => process.stderr.write((0,_action_runner_js__WEBPACK_IMPORTED_MODULE_0__/* .escapeLogText */ .dD)(text)),
    };
}
class CliLog {
    io;
    printed = [];
    done = new Map();
    next = 0;
    open;
    clusters = [];
    constructor(io) {
        this.io = io;
    }
    /** The selected cluster names in runtime order; groups are titled `cluster <name> (...)`. */
    order(clusters) {
        this.clusters = clusters;
    }
    line(text) {
        if (this.open && !this.open.streaming)
            this.open.group.lines.push(text);
        else
            this.write(text);
    }
    startGroup(title) {
        const index = this.indexOf(title);
        // A group whose turn it is (or that names no cluster of the list) is printed as it comes.
        const streaming = index === undefined || index <= this.next;
        this.open = { group: { title, lines: [] }, index, streaming };
        if (streaming)
            this.write(`── ${title}`);
    }
    endGroup() {
        const open = this.open;
        this.open = undefined;
        if (!open)
            return;
        if (open.streaming) {
            if (open.index === this.next)
                this.next += 1;
        }
        else
            this.done.set(open.index, open.group);
        this.release();
    }
    /** Prints the groups still held back (clusters before them never reported), in runtime order. */
    flush() {
        for (const index of [...this.done.keys()].sort((a, b) => a - b))
            this.writeGroup(this.done.get(index));
        this.done.clear();
        this.next = this.clusters.length;
    }
    /** Whether a printed line already holds this text. */
    hasPrinted(text) {
        return this.printed.some((line) => line.includes(text));
    }
    indexOf(title) {
        // The longest name that matches, so that `prod` does not take the group of `prod-2`.
        let found;
        this.clusters.forEach((name, index) => {
            if (title === `cluster ${name}` || title.startsWith(`cluster ${name} (`)) {
                if (found === undefined || name.length > this.clusters[found].length)
                    found = index;
            }
        });
        return found;
    }
    release() {
        for (let group = this.done.get(this.next); group; group = this.done.get(this.next)) {
            this.done.delete(this.next);
            this.writeGroup(group);
            this.next += 1;
        }
    }
    writeGroup(group) {
        this.write(`── ${group.title}`);
        for (const text of group.lines)
            this.write(text);
    }
    write(text) {
        this.printed.push(text);
        this.io.stderr(`${text}\n`);
    }
}


/***/ }),

/***/ 3078:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {


// EXPORTS
__nccwpck_require__.d(__webpack_exports__, {
  a: () => (/* binding */ runCli)
});

// UNUSED EXPORTS: reportError

;// CONCATENATED MODULE: ./src/cue/deferred-frees.ts
/** Most frees that wait for a call. */
const FLUSH_AT = 256;
/** The engine's answer to `free`, given at once. */
const FREED = '{"result":true}';
/** The engine's calls with frees held back until the next other call (sent or blocking). */
function deferFrees(bridge, later) {
    let pending = [];
    const flush = () => {
        const handles = pending;
        pending = [];
        bridge('freeMany', JSON.stringify({ handles }));
    };
    return {
        bridge: (method, request) => {
            if (method === 'free') {
                pending.push(JSON.parse(request).handle);
                if (pending.length >= FLUSH_AT)
                    flush();
                return FREED;
            }
            if (pending.length > 0)
                flush();
            return bridge(method, request);
        },
        later: (method, request) => {
            if (pending.length > 0)
                flush();
            return later(method, request);
        },
    };
}

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __nccwpck_require__(7598);
;// CONCATENATED MODULE: ./src/cue/error.ts
/** Renders a diagnostic as `file:line:col: path: message` (parts left out when unknown). */
function formatDiagnostic(diagnostic) {
    const position = diagnostic.positions[0];
    const where = position ? `${position.file}:${position.line}:${position.column}: ` : '';
    const path = diagnostic.path ? `${diagnostic.path}: ` : '';
    return `${where}${path}${diagnostic.message}`;
}
/** A failure reported by CUE, with every individual error as a diagnostic. */
class CueError extends Error {
    diagnostics;
    constructor(diagnostics) {
        super(diagnostics.map(formatDiagnostic).join('\n') || 'CUE failed without a diagnostic');
        this.name = 'CueError';
        this.diagnostics = diagnostics;
    }
}

;// CONCATENATED MODULE: ./src/cue/file-sets.ts
// A module's cue.mod files sent to the engine once (src/cue/shim/filesets.go). They are
// most of a module's bytes (the Kubernetes schemas under cue.mod/gen) and the same for
// every instance build of it; each load then sends only its own files and names the set.
// The engine keeps the 8 most recently used sets; a load naming a set it dropped fails
// with a message of its own, and the set is sent again.


/** How many sets are remembered here (the engine keeps as many: maxFileSets). */
const REMEMBERED = 8;
/** The start of the engine's message for a set it no longer keeps (fileSetUnknownPrefix). */
const UNKNOWN_SET = 'CUE file set not kept:';
/** Whether a path is in a cue.mod folder (of the module root or of a module below it). */
function inCueMod(path) {
    return path.startsWith('cue.mod/') || path.includes('/cue.mod/');
}
/** The load's files split into those of cue.mod folders and its own. */
function splitFiles(files) {
    const shared = {};
    const own = {};
    for (const [path, content] of Object.entries(files)) {
        if (inCueMod(path))
            shared[path] = content;
        else
            own[path] = content;
    }
    return { shared, own };
}
/** A digest of files: names and contents (text and bytes told apart). */
function filesDigest(files) {
    const hash = (0,external_node_crypto_.createHash)('sha256');
    const length = Buffer.alloc(8);
    const field = (kind, data) => {
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        length.writeBigUInt64LE(BigInt(bytes.byteLength));
        hash.update(kind).update(length).update(bytes);
    };
    for (const path of Object.keys(files).sort()) {
        const content = files[path];
        field('p', path);
        field(typeof content === 'string' ? 't' : 'b', content);
    }
    return hash.digest('hex');
}
function sameContent(a, b) {
    if (typeof a === 'string' || typeof b === 'string')
        return a === b;
    return a !== undefined && b !== undefined && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
/** Whether two file maps hold the same names and contents (the same string, as a later build sends, compares at once). */
function sameFiles(a, b) {
    const names = Object.keys(a);
    if (names.length !== Object.keys(b).length)
        return false;
    return names.every((name) => name in b && sameContent(a[name], b[name]));
}
/** The sets one engine holds, by digest, most recently used last. */
class FileSets {
    #sets = new Map();
    /** The files of the latest digests: every build of a module sends the same strings again. */
    #digests = [];
    /** filesDigest, remembered for the last few file maps (a module's cue.mod files are hashed once, not at every load). */
    digest(files) {
        const seen = this.#digests.find((entry) => sameFiles(entry.files, files));
        if (seen)
            return seen.digest;
        const digest = filesDigest(files);
        this.#digests.unshift({ files, digest });
        this.#digests.length = Math.min(this.#digests.length, REMEMBERED);
        return digest;
    }
    /** The engine's number for these files, if it was given them. */
    known(digest) {
        const id = this.#sets.get(digest);
        if (id === undefined)
            return undefined;
        this.#sets.delete(digest);
        this.#sets.set(digest, id);
        return id;
    }
    remember(digest, id) {
        this.#sets.delete(digest);
        this.#sets.set(digest, id);
        while (this.#sets.size > REMEMBERED) {
            const oldest = this.#sets.keys().next().value;
            this.#sets.delete(oldest);
        }
    }
    forget(digest) {
        this.#sets.delete(digest);
    }
}
/** Whether a load failed only because the engine no longer keeps the named set. */
function isUnknownSet(error) {
    return error instanceof CueError && error.diagnostics.length === 1 && (error.diagnostics[0]?.message ?? '').startsWith(UNKNOWN_SET);
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __nccwpck_require__(3024);
;// CONCATENATED MODULE: external "node:os"
const external_node_os_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:os");
;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:path");
;// CONCATENATED MODULE: external "node:url"
const external_node_url_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:url");
;// CONCATENATED MODULE: ./src/cue/memory-limit.ts
// A ceiling on the CUE engine's memory. Go's WebAssembly module defines its own linear
// memory with no maximum, so a CUE evaluation that grows without end (a bundle's
// `list.Range(0, 2e8, 1)`) takes the process to gigabytes before Go gives up with a fatal
// error and a goroutine dump. Here the module's memory section gets a maximum before the
// module is instantiated; past it, memory.grow fails inside Go, Go stops with "out of
// memory", and the engine reports that as one clear error (see wasm-runtime.ts), not a dump.
// The native engine (native-runtime.ts) gets the same limit as an argument: its Go runtime
// stops itself past it (src/cue/shim/memwatch.go), with the same error.
const PAGE_BYTES = 64 * 1024;
const MEMORY_SECTION = 5;
/** The most a 32-bit WebAssembly memory can hold, in pages (4 GiB). */
const MAX_PAGES = 65_536;
/** The default ceiling, in MiB. */
const DEFAULT_MEMORY_LIMIT_MIB = 2048;
/** The one error both engines give when an evaluation passes the limit. */
function memoryLimitMessage(limitMiB) {
    return `the CUE evaluation needed more than the CUE engine's memory limit of ${limitMiB} MiB (cue-memory-limit) and was stopped; a CUE expression that builds a very large value (list.Range over millions of numbers, say) is the usual cause`;
}
class MemoryLimitError extends Error {
    name = 'MemoryLimitError';
}
function readLeb(bytes, start) {
    let value = 0;
    let shift = 0;
    let position = start;
    for (;;) {
        const byte = bytes[position++];
        if (byte === undefined)
            throw new MemoryLimitError('the CUE engine WebAssembly ends inside a number');
        value += (byte & 0x7f) * 2 ** shift;
        if ((byte & 0x80) === 0)
            return [value, position];
        shift += 7;
    }
}
function writeLeb(value) {
    const out = [];
    let rest = value;
    do {
        let byte = rest % 128;
        rest = Math.floor(rest / 128);
        if (rest > 0)
            byte |= 0x80;
        out.push(byte);
    } while (rest > 0);
    return out;
}
/** The module with its (single) memory limited to `limitMiB`; its initial size is kept. */
function withMemoryLimit(module, limitMiB) {
    if (!Number.isFinite(limitMiB) || limitMiB <= 0)
        throw new MemoryLimitError(`the CUE memory limit must be a positive number of MiB, not ${limitMiB}`);
    const maxPages = Math.min(MAX_PAGES, Math.floor((limitMiB * 1024 * 1024) / PAGE_BYTES));
    let position = 8; // magic and version
    while (position < module.length) {
        const id = module[position];
        const [size, payload] = readLeb(module, position + 1);
        if (id === MEMORY_SECTION) {
            const [count, limits] = readLeb(module, payload);
            if (count !== 1)
                throw new MemoryLimitError(`the CUE engine WebAssembly declares ${count} memories, expected 1`);
            const flags = module[limits];
            const [initial] = readLeb(module, limits + 1);
            if (flags !== 0 && flags !== 1)
                throw new MemoryLimitError(`the CUE engine WebAssembly's memory has flags ${String(flags)}, expected 0 or 1`);
            const max = Math.max(maxPages, initial);
            const section = [1, 1, ...writeLeb(initial), ...writeLeb(max)];
            const head = module.subarray(0, position);
            const tail = module.subarray(payload + size);
            const patched = new Uint8Array(head.length + 1 + writeLeb(section.length).length + section.length + tail.length);
            patched.set(head, 0);
            let at = head.length;
            patched[at++] = MEMORY_SECTION;
            for (const byte of [...writeLeb(section.length), ...section])
                patched[at++] = byte;
            patched.set(tail, at);
            return patched;
        }
        position = payload + size;
    }
    throw new MemoryLimitError('the CUE engine WebAssembly has no memory section');
}

;// CONCATENATED MODULE: ./src/cue/native-pipes.ts
// The native engine's frames through two named pipes (src/cue/shim/fifo_unix.go), read
// and written by the calling thread itself, blocking: no other thread, no event loop
// between a call and its answer. Each end is opened in one direction only (requests for
// writing, responses for reading), so that the engine's process is the only other holder
// of each pipe: when it ends, a read returns the end of the pipe and a write fails with
// EPIPE (Node ignores SIGPIPE), and the pending call returns instead of waiting for ever.
// Frames: u32le length + method, u32le length + JSON request; u32le length + JSON
// response (src/cue/shim/frames.go).
//
// A call may also be sent without waiting (`send`, for a module build's evaluation, tens
// of milliseconds): its method goes with the `notify:` prefix, and once its response is
// on the pipe the engine writes an empty frame on its first response stream (file
// descriptor 3), which the event loop watches (native-process.ts) and hands to `notice`;
// the response is read then, without blocking. The engine answers in request order, so a
// blocking call made while sent calls wait reads their responses first (settling them)
// and then its own; the notices of responses read that way are skipped when they come.

/** The method prefix that asks the engine for a notice once the response is written (src/cue/shim/frames.go). */
const NOTIFY_PREFIX = 'notify:';
/** A request frame: u32le length + method, u32le length + JSON request. */
function encodeFrame(method, request) {
    const name = Buffer.from(method);
    const body = Buffer.from(request);
    const frame = Buffer.allocUnsafe(8 + name.length + body.length);
    frame.writeUInt32LE(name.length, 0);
    name.copy(frame, 4);
    frame.writeUInt32LE(body.length, 4 + name.length);
    body.copy(frame, 8 + name.length);
    return frame;
}
const pause = new Int32Array(new SharedArrayBuffer(4));
/** Sleeps this thread (the engine's calls are synchronous: no timer can run meanwhile). */
function sleepSync(ms) {
    Atomics.wait(pause, 0, 0, ms);
}
/** Retries what a blocking call may still report (a signal). */
function again(error) {
    const code = error.code;
    if (code !== 'EAGAIN' && code !== 'EINTR')
        return false;
    sleepSync(1);
    return true;
}
/** Writes every byte; false when the engine's end is gone (EPIPE). */
function writeAll(fd, bytes) {
    let written = 0;
    while (written < bytes.length) {
        try {
            written += (0,external_node_fs_.writeSync)(fd, bytes, written, bytes.length - written);
        }
        catch (error) {
            if (error.code === 'EPIPE')
                return false;
            if (!again(error))
                throw error;
        }
    }
    return true;
}
/** Reads exactly `size` bytes; undefined when the pipe ends first. */
function readExactly(fd, size) {
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
        let n;
        try {
            n = (0,external_node_fs_.readSync)(fd, bytes, read, size - read, null);
        }
        catch (error) {
            if (again(error))
                continue;
            throw error;
        }
        if (n === 0)
            return undefined;
        read += n;
    }
    return bytes;
}
function openAsync(path, flags) {
    return new Promise((resolve, reject) => (0,external_node_fs_.open)(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))));
}
/**
 * Opens the caller's ends once the engine answered with the paths: it opens its own right
 * after (requests first), and each open waits for the other side. The opens run off the
 * main thread, raced against `gone` (the engine's exit): when it exits first, the pending
 * open is released by opening the engine's side here, and the start fails.
 */
async function openPipes(paths, gone) {
    const opened = [];
    const release = (path, flags) => {
        try {
            (0,external_node_fs_.closeSync)((0,external_node_fs_.openSync)(path, flags | external_node_fs_.constants.O_NONBLOCK));
        }
        catch {
            // Nothing waits on it.
        }
    };
    try {
        for (const [path, flags, releaseFlags] of [
            [paths.requests, 'w', external_node_fs_.constants.O_RDONLY],
            [paths.responses, 'r', external_node_fs_.constants.O_RDWR],
        ]) {
            const pending = openAsync(path, flags);
            const fd = await Promise.race([pending, gone.then((error) => Promise.reject(error))]).catch((error) => {
                release(path, releaseFlags);
                void pending.then(external_node_fs_.closeSync, () => undefined);
                throw error;
            });
            opened.push(fd);
        }
    }
    catch (error) {
        for (const fd of opened)
            (0,external_node_fs_.closeSync)(fd);
        throw error;
    }
    const [requests, responses] = opened;
    const sent = [];
    // Notices still to come for responses a blocking call read first.
    let noticesToSkip = 0;
    // Closed by this side: notices that still come are not read.
    let closed = false;
    const readResponse = () => {
        const size = readExactly(responses, 4)?.readUInt32LE(0);
        if (size === undefined)
            return undefined;
        return readExactly(responses, size)?.toString('utf8');
    };
    const abandon = () => {
        for (const settle of sent.splice(0))
            settle(undefined);
    };
    return {
        call(method, request) {
            if (!writeAll(requests, encodeFrame(method, request)))
                return undefined;
            while (sent.length > 0) {
                const settle = sent.shift();
                settle(readResponse());
                noticesToSkip += 1;
            }
            return readResponse();
        },
        send(method, request) {
            if (!writeAll(requests, encodeFrame(NOTIFY_PREFIX + method, request)))
                return Promise.resolve(undefined);
            return new Promise((resolve) => sent.push(resolve));
        },
        get waiting() {
            return sent.length;
        },
        notice() {
            if (closed)
                return;
            if (noticesToSkip > 0) {
                noticesToSkip -= 1;
                return;
            }
            const settle = sent.shift();
            if (!settle)
                return;
            let response;
            try {
                response = readResponse();
            }
            catch {
                // The pipe failed under the read: the call is answered as by an engine that is gone.
            }
            settle(response);
        },
        abandon,
        close() {
            closed = true;
            abandon();
            for (const fd of [requests, responses]) {
                try {
                    (0,external_node_fs_.closeSync)(fd);
                }
                catch {
                    // Already closed.
                }
            }
        },
    };
}

;// CONCATENATED MODULE: external "node:child_process"
const external_node_child_process_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:child_process");
;// CONCATENATED MODULE: ./src/cue/native-process.ts
// The native engine's process as this (main) thread holds it, with no other thread:
// started with an empty environment in its private folder; its first calls (the start
// check, then the switch to named pipes) are frames on its standard input and file
// descriptor 3, answered through the event loop; later calls block on the named pipes
// (native-pipes.ts), while the event loop does not run. So why the process ended must
// also be known without the event loop:
// - its standard error goes to a file in its private folder, never to a pipe (a pipe
//   nobody drains while this thread waits would stop Go's fatal dump half-way, and the
//   process with it). Go's last words, from a `fatal error:` or `panic:` line on, are
//   kept for the error message; what came before goes to this process's standard error
//   (never its standard output, where a line starting with `::` is a workflow command),
//   as does the program's standard output, directly;
// - its exit status is read from /proc/<pid>/stat while it waits to be reaped (Linux);
//   the exit event gives it when the event loop ran since.




const FATAL_START = /^(fatal error:|runtime: out of memory|panic: )/m;
const FATAL_LIMIT = 2048;
/** How long a stopped process may take to become a zombie once its pipes ended. */
const REAP_WAIT_MS = 2_000;
function signalName(signal) {
    return Object.entries(external_node_os_namespaceObject.constants.signals).find(([, value]) => value === signal)?.[0] ?? `signal ${signal}`;
}
/** The exit status of a dead, not yet reaped child, from /proc (Linux); undefined elsewhere or while it runs. */
function zombieStatus(pid) {
    let stat;
    try {
        stat = (0,external_node_fs_.readFileSync)(`/proc/${pid}/stat`, 'utf8');
    }
    catch {
        return undefined;
    }
    // Fields after the command name (which may hold spaces) start at the state, field 3;
    // the exit status (as waitpid gives it) is field 52.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z')
        return undefined;
    const status = Number(fields[49]);
    if (!Number.isInteger(status))
        return undefined;
    const signal = status & 0x7f;
    return signal === 0 ? { code: (status >> 8) & 0xff, signal: null } : { code: null, signal: signalName(signal) };
}
class EngineProcess {
    #child;
    #stderrPath;
    #stderrShown = 0;
    #stopped;
    #pending;
    /** Once the calls moved to the named pipes: what an (empty) frame on file descriptor 3 means. */
    #onNotice;
    /** Settles with the stop once the process is gone (seen by the event loop). */
    gone;
    constructor(program, args, workdir, stderrPath) {
        this.#stderrPath = stderrPath;
        const stderrFd = (0,external_node_fs_.openSync)(stderrPath, 'w', 0o600);
        try {
            this.#child = (0,external_node_child_process_namespaceObject.spawn)(program, args, { cwd: workdir, env: {}, stdio: ['pipe', 2, stderrFd, 'pipe'], windowsHide: true });
        }
        finally {
            (0,external_node_fs_.closeSync)(stderrFd);
        }
        const stdin = this.#child.stdin;
        const responses = this.#child.stdio[3];
        for (const stream of [stdin, responses])
            stream.on('error', () => { });
        this.gone = new Promise((resolve) => {
            this.#child.on('error', (error) => resolve(this.#stop({ startError: error.message })));
            this.#child.on('exit', (code, signal) => resolve(this.#stop({ code, signal })));
        });
        this.#readFrames(responses);
    }
    /**
     * Lets this process end without waiting for the engine's (once the calls moved to the
     * named pipes; during the start, the awaited answers need the event loop alive).
     */
    detach(onNotice) {
        this.#onNotice = onNotice;
        this.#child.unref();
        for (const stream of [this.#child.stdin, this.#child.stdio[3]])
            stream?.unref?.();
    }
    /**
     * Keeps this process alive while a sent call waits for its notice (the event loop must
     * run until it comes), or lets it end again.
     */
    awaitNotices(waiting) {
        const notices = this.#child.stdio[3];
        if (waiting)
            notices?.ref?.();
        else
            notices?.unref?.();
    }
    get pid() {
        return this.#child.pid ?? 0;
    }
    /** One call through standard input and file descriptor 3 (the start, before the named pipes). */
    callAsync(method, request) {
        if (this.#stopped)
            return Promise.reject(this.#stopped);
        return new Promise((resolve, reject) => {
            this.#pending = { resolve, reject };
            this.#child.stdin?.write(encodeFrame(method, request));
        });
    }
    /**
     * Why the process stopped, once a named pipe told so (its end, or EPIPE): from the exit
     * event when the event loop saw it, else from /proc while the process waits to be
     * reaped (waiting for it a moment), else without the status.
     */
    stopNow() {
        if (this.#stopped)
            return this.#stopped;
        const until = Date.now() + REAP_WAIT_MS;
        let status = zombieStatus(this.pid);
        while (!status && Date.now() < until) {
            sleepSync(2);
            status = zombieStatus(this.pid);
        }
        return this.#stop(status ?? { code: null, signal: null });
    }
    /** Kills the process (if it runs) and shows what it wrote to standard error since the last time. */
    kill() {
        try {
            this.#child.kill('SIGKILL');
        }
        catch {
            // Already gone.
        }
        this.#stop({ startError: 'the engine was stopped' });
    }
    #stop(stop) {
        if (this.#stopped)
            return this.#stopped;
        const fatal = this.#showStderr();
        this.#stopped = fatal === undefined ? stop : { ...stop, fatal };
        this.#pending?.reject(this.#stopped);
        this.#pending = undefined;
        return this.#stopped;
    }
    /** Copies the new part of the standard error file to this process's, up to Go's fatal dump; returns the dump's start. */
    #showStderr() {
        let text;
        try {
            text = (0,external_node_fs_.readFileSync)(this.#stderrPath, 'utf8').slice(this.#stderrShown);
        }
        catch {
            return undefined;
        }
        this.#stderrShown += text.length;
        const at = text.search(FATAL_START);
        const shown = at < 0 ? text : text.slice(0, at);
        try {
            if (shown)
                (0,external_node_fs_.writeSync)(2, shown);
        }
        catch {
            // Nowhere to show it.
        }
        return at < 0 ? undefined : text.slice(at, at + FATAL_LIMIT);
    }
    #readFrames(responses) {
        let buffered = Buffer.alloc(0);
        responses.on('data', (data) => {
            buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
            while (buffered.length >= 4) {
                const size = buffered.readUInt32LE(0);
                if (buffered.length < 4 + size)
                    return;
                const response = buffered.toString('utf8', 4, 4 + size);
                buffered = buffered.subarray(4 + size);
                const pending = this.#pending;
                this.#pending = undefined;
                if (pending)
                    pending.resolve(response);
                else
                    this.#onNotice?.();
            }
        });
    }
}

;// CONCATENATED MODULE: external "node:fs/promises"
const promises_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs/promises");
;// CONCATENATED MODULE: external "node:stream/promises"
const external_node_stream_promises_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:stream/promises");
;// CONCATENATED MODULE: external "node:zlib"
const external_node_zlib_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:zlib");
;// CONCATENATED MODULE: ./src/private-cache-dir.ts
// Where timoni-fleet keeps what it reuses between runs (pulled modules, the unpacked
// native CUE engine): one folder per kind under one root, so that no run leaves a folder
// of its own behind. In GitHub Actions the runner's temporary folder (RUNNER_TEMP,
// emptied after each job); elsewhere $XDG_CACHE_HOME/timoni-fleet, else
// ~/.cache/timoni-fleet. What is kept there is run (a module's code is built, the engine
// is a program): each folder is created private (0700) and refused when it is a link,
// another user owns it or others may write to it, since whoever can write there chooses
// what the next run executes.



class PrivateCacheDirError extends Error {
    constructor(label, dir, reason) {
        super(`${label} ${dir}: ${reason}`);
        this.name = 'PrivateCacheDirError';
    }
}
/** The default folder of one kind of cached things (`modules`, `engines`) for this environment. */
function defaultCacheDir(kind, env = process.env, home = (0,external_node_os_namespaceObject.homedir)()) {
    if (env.GITHUB_ACTIONS === 'true' && env.RUNNER_TEMP && (0,external_node_path_namespaceObject.isAbsolute)(env.RUNNER_TEMP))
        return (0,external_node_path_namespaceObject.join)(env.RUNNER_TEMP, 'timoni-fleet', kind);
    // The XDG base directory rules: a relative XDG_CACHE_HOME is invalid and ignored.
    const cacheHome = env.XDG_CACHE_HOME && (0,external_node_path_namespaceObject.isAbsolute)(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : (0,external_node_path_namespaceObject.join)(home, '.cache');
    return (0,external_node_path_namespaceObject.join)(cacheHome, 'timoni-fleet', kind);
}
/**
 * Creates `dir` (and its parents) when missing, the folder itself with mode 0700, and checks
 * it: a real folder (not a link), owned by this user, not writable by group or others.
 * `label` names the folder in errors ("module cache folder").
 */
function preparePrivateCacheDir(dir, label) {
    try {
        (0,external_node_fs_.mkdirSync)(dir, { recursive: true, mode: 0o700 });
    }
    catch (error) {
        throw new PrivateCacheDirError(label, dir, `cannot create it: ${error instanceof Error ? error.message : String(error)}`);
    }
    const info = (0,external_node_fs_.lstatSync)(dir);
    if (info.isSymbolicLink())
        throw new PrivateCacheDirError(label, dir, 'is a symbolic link; refusing to keep files where the link points');
    if (!info.isDirectory())
        throw new PrivateCacheDirError(label, dir, 'is not a folder');
    const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
    if (uid !== undefined && info.uid !== uid) {
        throw new PrivateCacheDirError(label, dir, `is owned by user ${info.uid}, not by this user (${uid}); refusing to run what another user can change`);
    }
    if (process.platform !== 'win32' && (info.mode & 0o022) !== 0) {
        throw new PrivateCacheDirError(label, dir, `can be written by others (mode ${(info.mode & 0o777).toString(8)}); make it private (chmod 700) or remove it`);
    }
    return dir;
}

;// CONCATENATED MODULE: ./src/cue/native-program.ts
// The native engine's program on disk. Unpacking `cue-shim.gz` (about 20 MB) costs a
// process 40-60 ms of CPU and 20-30 MiB of buffers at every start, so the program is
// unpacked once per artifact into the private cache folder (src/private-cache-dir.ts:
// ~/.cache/timoni-fleet/engines, RUNNER_TEMP in GitHub Actions), named by the sha256 of
// the artifact, written under a temporary name and renamed into place (a program that
// exists is complete). The folder's checks (private, this user's, no link) are what makes
// running a program from it safe: whoever can write there could run code as this user
// anyway. When the folder cannot be used, the program is unpacked into the engine's own
// private folder for this run, as before. Programs of other artifacts not used for 30
// days are removed, and so are temporary files a killed process left.







/** Bytes per step when unpacking the program (larger steps: fewer round trips, same memory order). */
const UNPACK_CHUNK = 1024 * 1024;
const PROGRAM_PREFIX = 'cue-shim-';
const TEMPORARY_PREFIX = '.tmp-';
const UNUSED_PROGRAM_MS = 30 * 24 * 60 * 60 * 1000;
const STALE_TEMPORARY_MS = 60 * 60 * 1000;
async function unpack(artifact, to) {
    try {
        await (0,external_node_stream_promises_namespaceObject.pipeline)((0,external_node_fs_.createReadStream)(artifact, { highWaterMark: UNPACK_CHUNK }), (0,external_node_zlib_namespaceObject.createGunzip)({ chunkSize: UNPACK_CHUNK }), (0,external_node_fs_.createWriteStream)(to, { mode: 0o700, highWaterMark: UNPACK_CHUNK }));
    }
    catch (error) {
        (0,external_node_fs_.rmSync)(to, { force: true });
        throw new Error(`cannot unpack the native CUE engine ${artifact}: ${error.message}`, { cause: error });
    }
}
/**
 * The sha256 of the artifact: from the `cue-shim.sha256` written beside it by the build
 * (scripts/build-cue.mjs; copied into dist/ by scripts/build.mjs), else computed (8 ms for
 * the 7 MB artifact, at every start).
 */
async function artifactDigest(artifact) {
    const recorded = await (0,promises_namespaceObject.readFile)((0,external_node_path_namespaceObject.join)((0,external_node_path_namespaceObject.dirname)(artifact), 'cue-shim.sha256'), 'utf8').catch(() => '');
    const digest = /^([0-9a-f]{64})\s+cue-shim\.gz\s*$/.exec(recorded)?.[1];
    if (digest && (0,external_node_path_namespaceObject.basename)(artifact) === 'cue-shim.gz')
        return digest;
    return (0,external_node_crypto_.createHash)('sha256')
        .update(await (0,promises_namespaceObject.readFile)(artifact))
        .digest('hex');
}
/** A program this user alone can change, ready to run. */
function usable(path) {
    try {
        const info = (0,external_node_fs_.lstatSync)(path);
        const uid = typeof process.getuid === 'function' ? process.getuid() : info.uid;
        return info.isFile() && info.uid === uid && (info.mode & 0o022) === 0 && (info.mode & 0o100) !== 0 && info.size > 0;
    }
    catch {
        return false;
    }
}
function removeUnused(dir, keep) {
    const now = Date.now();
    for (const name of (0,external_node_fs_.readdirSync)(dir)) {
        const path = (0,external_node_path_namespaceObject.join)(dir, name);
        if (path === keep)
            continue;
        const limit = name.startsWith(TEMPORARY_PREFIX) ? STALE_TEMPORARY_MS : name.startsWith(PROGRAM_PREFIX) ? UNUSED_PROGRAM_MS : undefined;
        if (limit === undefined)
            continue;
        try {
            if (now - (0,external_node_fs_.statSync)(path).mtimeMs > limit)
                (0,external_node_fs_.rmSync)(path, { force: true });
        }
        catch {
            // Removed by another process meanwhile.
        }
    }
}
/**
 * The program of `artifact`, from the cache folder `cacheDir` (unpacked there first when
 * missing), or unpacked into `workdir` when there is no usable cache folder. `fresh`
 * replaces a cached program (one that failed to start).
 */
async function nativeProgram(artifact, workdir, cacheDir, fresh = false) {
    let dir;
    try {
        if (cacheDir !== null)
            dir = preparePrivateCacheDir(cacheDir, 'CUE engine cache folder');
    }
    catch {
        // No usable cache folder (not ours, open to others, not writable): unpack for this run.
    }
    if (dir === undefined) {
        const path = (0,external_node_path_namespaceObject.join)(workdir, 'cue-shim');
        await unpack(artifact, path);
        return { path, cached: false };
    }
    const digest = await artifactDigest(artifact);
    const path = (0,external_node_path_namespaceObject.join)(dir, `${PROGRAM_PREFIX}${digest}`);
    if (!fresh && usable(path)) {
        const now = new Date();
        (0,external_node_fs_.utimesSync)(path, now, now);
        return { path, cached: true };
    }
    const temporary = (0,external_node_path_namespaceObject.join)(dir, `${TEMPORARY_PREFIX}${(0,external_node_crypto_.randomBytes)(6).toString('hex')}`);
    await unpack(artifact, temporary);
    (0,external_node_fs_.renameSync)(temporary, path);
    removeUnused(dir, path);
    return { path, cached: true };
}

;// CONCATENATED MODULE: ./src/cue/native-runtime.ts
// Starts the native build of the Go shim (src/cue/shim, built by scripts/build-cue.mjs
// into native/<goos>-<goarch>/cue-shim.gz) as a child process and returns the same
// synchronous Bridge as the WebAssembly engine. This thread holds the child
// (native-process.ts): the start check and the switch to named pipes are asynchronous
// frames on its standard input and file descriptor 3, then every call goes through two
// named pipes that this thread writes and reads itself, blocking (native-pipes.ts).
//
// The child is confined as far as an unprivileged process can be: an empty environment,
// a fresh private (0700) temporary folder as its working directory, removed at exit (by
// this process, or by the child when this process dies first: its standard input then
// ends), files only from the in-memory overlay of each load (as in WebAssembly; cue/load
// looks at the host only under the virtual root /timoni-fleet-virtual/load-<n>, which
// does not exist), no module registry, nothing written to standard output. It is killed
// when this process exits, and stops itself past the memory limit (exit code 86).









/** The exit code with which the shim stops past its memory limit (src/cue/shim/bridge_other.go). */
const EXIT_MEMORY_LIMIT = 86;
/** How long the start check (first answer of the child) may take. */
const START_TIMEOUT_MS = 20_000;
/** The artifact folder name of this platform (Go's names), or undefined where none is built. */
function nativePlatform(platform = process.platform, arch = process.arch) {
    const goarch = { x64: 'amd64', arm64: 'arm64' }[arch];
    if (!goarch || (platform !== 'linux' && platform !== 'darwin'))
        return undefined;
    const name = `${platform}-${goarch}`;
    return ['linux-amd64', 'linux-arm64', 'darwin-arm64'].includes(name) ? name : undefined;
}
/**
 * Where native/<platform>/cue-shim.gz may be, relative to this module: beside the bundled
 * dist/index.js, one level up from dist/cli/index.js, or beside the sources (src/cue).
 * Undefined when this platform has no artifact.
 */
function locateNative(moduleUrl = import.meta.url) {
    const platform = nativePlatform();
    if (!platform)
        return undefined;
    const here = (0,external_node_path_namespaceObject.dirname)((0,external_node_url_namespaceObject.fileURLToPath)(moduleUrl));
    for (const base of ['native', '../native']) {
        const path = (0,external_node_path_namespaceObject.join)(here, base, platform, 'cue-shim.gz');
        if ((0,external_node_fs_.existsSync)(path))
            return path;
    }
    return undefined;
}
/** The error for a call during which (or before which) the child stopped. */
function stoppedError(method, stop, limitMiB) {
    if (stop.startError !== undefined)
        return new Error(`the native CUE engine could not run ${method}: ${stop.startError}`);
    if (stop.code === EXIT_MEMORY_LIMIT || /out of memory/.test(stop.fatal ?? ''))
        return new Error(memoryLimitMessage(limitMiB));
    const how = stop.signal ? `signal ${stop.signal}` : `exit code ${stop.code ?? 'unknown'}`;
    const first = (stop.fatal ?? '').split('\n').slice(0, 2).join(' ').trim();
    return new Error(`the CUE engine stopped while running ${method} (${how})${first ? `: ${first}` : ''}`);
}
/**
 * Starts the native engine and checks it answers (`version`). Throws when this platform
 * has no artifact or the program cannot run here (a temporary folder mounted noexec, say);
 * the caller then uses the WebAssembly engine. The program is unpacked as a stream (off the
 * main thread, without holding its 18 MB in memory).
 */
async function startNative(options = {}) {
    const memoryLimitMiB = options.memoryLimitMiB ?? DEFAULT_MEMORY_LIMIT_MIB;
    const artifact = options.artifact ?? locateNative();
    if (!artifact)
        throw new Error(`no native CUE engine is built for ${process.platform}-${process.arch}`);
    const workdir = (0,external_node_fs_.mkdtempSync)((0,external_node_path_namespaceObject.join)((0,external_node_os_namespaceObject.tmpdir)(), 'timoni-fleet-cue-engine-'));
    const cacheDir = options.cacheDir === undefined ? defaultCacheDir('engines') : options.cacheDir;
    let engine;
    const cleanup = () => {
        engine?.kill();
        (0,external_node_fs_.rmSync)(workdir, { recursive: true, force: true });
    };
    // From here on the folder goes at exit, also when the start fails half-way.
    process.once('exit', cleanup);
    const launch = async (program) => {
        const started = new EngineProcess(program.path, ['--memory-limit-mib', String(memoryLimitMiB), '--workdir', workdir], workdir, (0,external_node_path_namespaceObject.join)(workdir, 'stderr'));
        engine = started;
        const gone = started.gone.then((stop) => stoppedError('its start check', stop, memoryLimitMiB));
        const call = (method) => withTimeout(started.callAsync(method, '{}').catch((stop) => Promise.reject(stoppedError('its start check', stop, memoryLimitMiB))), `the native CUE engine did not answer within ${START_TIMEOUT_MS / 1000} s of its start`);
        const version = await call('version');
        if (!/"cue":"v\d/.test(version))
            throw new Error(`the native CUE engine answered its start check with ${version.slice(0, 200)}`);
        const { result, error } = JSON.parse(await call('useFifos'));
        if (!result)
            throw new Error(`the native CUE engine cannot use named pipes: ${JSON.stringify(error).slice(0, 200)}`);
        const channel = await openPipes(result, gone);
        started.detach(() => {
            channel.notice();
            if (channel.waiting === 0)
                started.awaitNotices(false);
        });
        // An engine that stops while sent calls wait answers them with its end.
        void started.gone.then(() => channel.abandon());
        return { running: started, channel };
    };
    let running;
    let channel;
    try {
        const program = await nativeProgram(artifact, workdir, cacheDir);
        try {
            ({ running, channel } = await launch(program));
        }
        catch (error) {
            if (!program.cached)
                throw error;
            // A cached program that does not start (damaged since): unpacked again, once.
            engine?.kill();
            const again = await nativeProgram(artifact, workdir, cacheDir, true);
            try {
                ({ running, channel } = await launch(again));
            }
            catch (failure) {
                (0,external_node_fs_.rmSync)(again.path, { force: true });
                throw failure;
            }
        }
        // The child has its program open; a program unpacked for this run alone is not needed any more.
        if (!program.cached)
            (0,external_node_fs_.rmSync)(program.path, { force: true });
    }
    catch (error) {
        process.off('exit', cleanup);
        cleanup();
        throw error;
    }
    let stopped;
    const stop = () => {
        stopped ??= { startError: 'the engine was stopped' };
        process.off('exit', cleanup);
        channel.close();
        cleanup();
    };
    const bridge = (method, request) => {
        if (stopped)
            throw stoppedError(method, stopped, memoryLimitMiB);
        const response = channel.call(method, request);
        if (response !== undefined)
            return response;
        stopped = running.stopNow();
        throw stoppedError(method, stopped, memoryLimitMiB);
    };
    const later = async (method, request) => {
        if (stopped)
            throw stoppedError(method, stopped, memoryLimitMiB);
        running.awaitNotices(true);
        const response = await channel.send(method, request);
        if (channel.waiting === 0)
            running.awaitNotices(false);
        if (response !== undefined)
            return response;
        stopped ??= running.stopNow();
        throw stoppedError(method, stopped, memoryLimitMiB);
    };
    return { bridge, later, pid: running.pid, workdir, stop };
}
/** Rejects with `message` when the promise takes longer than the start may. */
function withTimeout(promise, message) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), START_TIMEOUT_MS);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

;// CONCATENATED MODULE: ./src/cue/protocol.ts
// The JSON protocol between the TypeScript face and the Go shim (dispatch.go): one
// call per operation, `{"result": ...}` or `{"error": {"diagnostics": [...]}}` back.

/** Runs one method; throws CueError with the engine's diagnostics when it fails. */
function invoke(bridge, method, request) {
    return resultOf(method, bridge(method, JSON.stringify(request)));
}
/** Runs one method answered through the event loop; rejects with CueError as `invoke` throws. */
async function invokeLater(later, method, request) {
    return resultOf(method, await later(method, JSON.stringify(request)));
}
function resultOf(method, text) {
    let response;
    try {
        response = JSON.parse(text);
    }
    catch (error) {
        throw new Error(`the CUE engine answered ${method} with malformed JSON: ${error.message}`, { cause: error });
    }
    if (response.error)
        throw new CueError(response.error.diagnostics);
    if (!('result' in response))
        throw new Error(`the CUE engine answered ${method} without a result`);
    return response.result;
}

;// CONCATENATED MODULE: ./src/cue/value.ts
var _a;

/** Frees the Go side of values that were dropped without free(). */
const dropped = new FinalizationRegistry(({ bridge, handle }) => {
    try {
        invoke(bridge, 'free', { handle });
    }
    catch {
        // The engine may be gone at exit; nothing is left to free then.
    }
});
/** A CUE value held by the Go side (WebAssembly or native) and referred to by its handle. */
class BridgeCueValue {
    #bridge;
    #handle;
    #freed = false;
    constructor(bridge, handle) {
        this.#bridge = bridge;
        this.#handle = handle;
        dropped.register(this, { bridge, handle }, this);
    }
    /** Handle number on the Go side; for other values of the same engine. */
    get handle() {
        this.#alive('use');
        return this.#handle;
    }
    #alive(operation) {
        if (this.#freed)
            throw new Error(`CUE value ${this.#handle} was freed; cannot ${operation} it`);
    }
    #call(method, request = {}) {
        this.#alive(method);
        return invoke(this.#bridge, method, { handle: this.#handle, ...request });
    }
    #derive(method, request) {
        const { handle } = this.#call(method, request);
        return new _a(this.#bridge, handle);
    }
    #other(other, operation) {
        if (!(other instanceof _a))
            throw new TypeError(`cannot ${operation} a CUE value that this engine did not create`);
        return other.handle;
    }
    lookup(path) {
        return this.#derive('lookup', { path });
    }
    exists() {
        return this.#call('exists');
    }
    kind() {
        return this.#call('kind');
    }
    fill(path, json) {
        if (json === undefined)
            throw new TypeError(`fill ${JSON.stringify(path)}: the value is undefined, which JSON cannot express`);
        return this.#derive('fill', { path, json });
    }
    fillValue(path, other) {
        return this.#derive('fillValue', { path, other: this.#other(other, 'fill with') });
    }
    unify(other) {
        return this.#derive('unify', { other: this.#other(other, 'unify with') });
    }
    validate(options = {}) {
        return this.#call('validate', { concrete: options.concrete ?? false, final: options.final ?? false });
    }
    toJSON() {
        return this.#call('toJSON');
    }
    toYAML() {
        return this.#call('toYAML');
    }
    hasBytes() {
        return this.#call('hasBytes');
    }
    toCUE() {
        return this.#call('toCUE');
    }
    fields(options = {}) {
        return this.#call('fields', {
            hidden: options.hidden ?? false,
            definitions: options.definitions ?? false,
            optional: options.optional ?? false,
        });
    }
    position() {
        return this.#call('position') ?? undefined;
    }
    free() {
        if (this.#freed)
            return;
        this.#freed = true;
        dropped.unregister(this);
        invoke(this.#bridge, 'free', { handle: this.#handle });
    }
}
_a = BridgeCueValue;

;// CONCATENATED MODULE: ./src/cue/go-sandbox.ts
// The sandbox that Go's WebAssembly runtime (wasm_exec.js) runs in. wasm_exec.js
// routes every file operation of the Go program through `globalThis.fs`; without
// one it installs a stub that prints Go's output with console.log, i.e. on
// standard output, where a line starting with `::` is a GitHub workflow command.
// This module installs, before wasm_exec.js is evaluated, a `globalThis.fs` that
// sends writes to file descriptors 1 and 2 to standard error and fails every other
// operation: the engine can neither read nor write host files. Look-ups (stat,
// lstat, open, readdir, readlink) fail with ENOENT, as if the host had no files:
// CUE's loader reads the caller's files from an in-memory overlay and asks the
// host only for paths the overlay lacks, which must read as "not found" (ENOSYS
// would abort the load). Everything else fails with ENOSYS.

const STDOUT = 1;
const STDERR = 2;
function failure(code, operation) {
    const error = new Error(`${operation}: not available to the CUE engine (in-memory sandbox)`);
    error.code = code;
    return error;
}
const enosys = (operation) => failure('ENOSYS', operation);
/**
 * Go's own last words: once the Go runtime prints `fatal error:` (out of memory, say), the
 * goroutine dump that follows (hundreds of lines) is kept out of the log; the engine turns
 * the first lines into its error instead (see wasm-runtime.ts).
 */
const fatal = { text: '', dumping: false };
const FATAL_TEXT_LIMIT = 2048;
/** What Go printed from its first `fatal error:` line on (at most a few lines), if it did. */
function goFatalOutput() {
    return fatal.dumping ? fatal.text : undefined;
}
function writeToStderr(fd, buffer) {
    if (fd !== STDOUT && fd !== STDERR)
        throw enosys(`write to file descriptor ${fd}`);
    const text = Buffer.from(buffer).toString('utf8');
    if (!fatal.dumping) {
        const start = text.search(/^(fatal error:|runtime: out of memory)/m);
        if (start >= 0) {
            fatal.dumping = true;
            const before = Buffer.from(text.slice(0, start));
            let written = 0;
            while (written < before.length)
                written += (0,external_node_fs_.writeSync)(STDERR, before, written, before.length - written);
            fatal.text = text.slice(start, start + FATAL_TEXT_LIMIT);
            return buffer.length;
        }
    }
    else {
        if (fatal.text.length < FATAL_TEXT_LIMIT)
            fatal.text = (fatal.text + text).slice(0, FATAL_TEXT_LIMIT);
        return buffer.length;
    }
    let written = 0;
    while (written < buffer.length)
        written += (0,external_node_fs_.writeSync)(STDERR, buffer, written, buffer.length - written);
    return buffer.length;
}
function refuse(operation, code) {
    return (...args) => {
        const callback = args[args.length - 1];
        if (typeof callback === 'function')
            callback(failure(code, operation));
    };
}
/** Operations that look a path up: the host seems to have no files at all. */
const lookupOperations = ['lstat', 'open', 'readdir', 'readlink', 'stat'];
/** Every other operation Go may call: not implemented. */
const refusedOperations = [
    'chmod', 'chown', 'close', 'fchmod', 'fchown', 'fstat', 'fsync', 'ftruncate', 'lchown', 'link',
    'mkdir', 'read', 'rename', 'rmdir', 'symlink', 'truncate', 'unlink', 'utimes',
];
/** The `fs` object given to Go: writes to fds 1 and 2 go to standard error, nothing else works. */
function createGoFileSystem() {
    const fileSystem = {
        // Go reads these flags at start-up and passes them back to open(), which fails
        // anyway; O_DIRECTORY must be a real flag, or Go refuses to read directories
        // itself ("not supported on Windows") instead of asking open().
        constants: {
            O_WRONLY: external_node_fs_.constants.O_WRONLY,
            O_RDWR: external_node_fs_.constants.O_RDWR,
            O_CREAT: external_node_fs_.constants.O_CREAT,
            O_TRUNC: external_node_fs_.constants.O_TRUNC,
            O_APPEND: external_node_fs_.constants.O_APPEND,
            O_EXCL: external_node_fs_.constants.O_EXCL,
            O_DIRECTORY: external_node_fs_.constants.O_DIRECTORY,
        },
        writeSync: writeToStderr,
        write(fd, buffer, offset, length, position, callback) {
            if (offset !== 0 || length !== buffer.length || position !== null) {
                callback(enosys('positioned write'));
                return;
            }
            try {
                callback(null, writeToStderr(fd, buffer));
            }
            catch (error) {
                callback(error);
            }
        },
    };
    for (const operation of lookupOperations)
        fileSystem[operation] = refuse(operation, 'ENOENT');
    for (const operation of refusedOperations)
        fileSystem[operation] = refuse(operation, 'ENOSYS');
    return fileSystem;
}
/** Marks the sandbox so that a second evaluation (e.g. two bundles in one process) is harmless. */
const SANDBOX_MARK = Symbol.for('timoni-fleet.cue.go-sandbox');
function installGoSandbox() {
    const global = globalThis;
    const current = global.fs;
    if (current?.[SANDBOX_MARK])
        return;
    const fileSystem = createGoFileSystem();
    Object.defineProperty(fileSystem, SANDBOX_MARK, { value: true });
    global.fs = fileSystem;
}
installGoSandbox();

;// CONCATENATED MODULE: ./src/cue/wasm/wasm_exec.js
// Copyright 2018 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.



(() => {
	const enosys = () => {
		const err = new Error("not implemented");
		err.code = "ENOSYS";
		return err;
	};

	if (!globalThis.fs) {
		let outputBuf = "";
		globalThis.fs = {
			constants: { O_WRONLY: -1, O_RDWR: -1, O_CREAT: -1, O_TRUNC: -1, O_APPEND: -1, O_EXCL: -1, O_DIRECTORY: -1 }, // unused
			writeSync(fd, buf) {
				outputBuf += decoder.decode(buf);
				const nl = outputBuf.lastIndexOf("\n");
				if (nl != -1) {
					console.log(outputBuf.substring(0, nl));
					outputBuf = outputBuf.substring(nl + 1);
				}
				return buf.length;
			},
			write(fd, buf, offset, length, position, callback) {
				if (offset !== 0 || length !== buf.length || position !== null) {
					callback(enosys());
					return;
				}
				const n = this.writeSync(fd, buf);
				callback(null, n);
			},
			chmod(path, mode, callback) { callback(enosys()); },
			chown(path, uid, gid, callback) { callback(enosys()); },
			close(fd, callback) { callback(enosys()); },
			fchmod(fd, mode, callback) { callback(enosys()); },
			fchown(fd, uid, gid, callback) { callback(enosys()); },
			fstat(fd, callback) { callback(enosys()); },
			fsync(fd, callback) { callback(null); },
			ftruncate(fd, length, callback) { callback(enosys()); },
			lchown(path, uid, gid, callback) { callback(enosys()); },
			link(path, link, callback) { callback(enosys()); },
			lstat(path, callback) { callback(enosys()); },
			mkdir(path, perm, callback) { callback(enosys()); },
			open(path, flags, mode, callback) { callback(enosys()); },
			read(fd, buffer, offset, length, position, callback) { callback(enosys()); },
			readdir(path, callback) { callback(enosys()); },
			readlink(path, callback) { callback(enosys()); },
			rename(from, to, callback) { callback(enosys()); },
			rmdir(path, callback) { callback(enosys()); },
			stat(path, callback) { callback(enosys()); },
			symlink(path, link, callback) { callback(enosys()); },
			truncate(path, length, callback) { callback(enosys()); },
			unlink(path, callback) { callback(enosys()); },
			utimes(path, atime, mtime, callback) { callback(enosys()); },
		};
	}

	if (!globalThis.process) {
		globalThis.process = {
			getuid() { return -1; },
			getgid() { return -1; },
			geteuid() { return -1; },
			getegid() { return -1; },
			getgroups() { throw enosys(); },
			pid: -1,
			ppid: -1,
			umask() { throw enosys(); },
			cwd() { throw enosys(); },
			chdir() { throw enosys(); },
		}
	}

	if (!globalThis.path) {
		globalThis.path = {
			resolve(...pathSegments) {
				return pathSegments.join("/");
			}
		}
	}

	if (!globalThis.crypto) {
		throw new Error("globalThis.crypto is not available, polyfill required (crypto.getRandomValues only)");
	}

	if (!globalThis.performance) {
		throw new Error("globalThis.performance is not available, polyfill required (performance.now only)");
	}

	if (!globalThis.TextEncoder) {
		throw new Error("globalThis.TextEncoder is not available, polyfill required");
	}

	if (!globalThis.TextDecoder) {
		throw new Error("globalThis.TextDecoder is not available, polyfill required");
	}

	const encoder = new TextEncoder("utf-8");
	const decoder = new TextDecoder("utf-8");

	globalThis.Go = class {
		constructor() {
			this.argv = ["js"];
			this.env = {};
			this.exit = (code) => {
				if (code !== 0) {
					console.warn("exit code:", code);
				}
			};
			this._exitPromise = new Promise((resolve) => {
				this._resolveExitPromise = resolve;
			});
			this._pendingEvent = null;
			this._scheduledTimeouts = new Map();
			this._nextCallbackTimeoutID = 1;

			const setInt64 = (addr, v) => {
				this.mem.setUint32(addr + 0, v, true);
				this.mem.setUint32(addr + 4, Math.floor(v / 4294967296), true);
			}

			const setInt32 = (addr, v) => {
				this.mem.setUint32(addr + 0, v, true);
			}

			const getInt64 = (addr) => {
				const low = this.mem.getUint32(addr + 0, true);
				const high = this.mem.getInt32(addr + 4, true);
				return low + high * 4294967296;
			}

			const loadValue = (addr) => {
				const f = this.mem.getFloat64(addr, true);
				if (f === 0) {
					return undefined;
				}
				if (!isNaN(f)) {
					return f;
				}

				const id = this.mem.getUint32(addr, true);
				return this._values[id];
			}

			const storeValue = (addr, v) => {
				const nanHead = 0x7FF80000;

				if (typeof v === "number" && v !== 0) {
					if (isNaN(v)) {
						this.mem.setUint32(addr + 4, nanHead, true);
						this.mem.setUint32(addr, 0, true);
						return;
					}
					this.mem.setFloat64(addr, v, true);
					return;
				}

				if (v === undefined) {
					this.mem.setFloat64(addr, 0, true);
					return;
				}

				let id = this._ids.get(v);
				if (id === undefined) {
					id = this._idPool.pop();
					if (id === undefined) {
						id = this._values.length;
					}
					this._values[id] = v;
					this._goRefCounts[id] = 0;
					this._ids.set(v, id);
				}
				this._goRefCounts[id]++;
				let typeFlag = 0;
				switch (typeof v) {
					case "object":
						if (v !== null) {
							typeFlag = 1;
						}
						break;
					case "string":
						typeFlag = 2;
						break;
					case "symbol":
						typeFlag = 3;
						break;
					case "function":
						typeFlag = 4;
						break;
				}
				this.mem.setUint32(addr + 4, nanHead | typeFlag, true);
				this.mem.setUint32(addr, id, true);
			}

			const loadSlice = (addr) => {
				const array = getInt64(addr + 0);
				const len = getInt64(addr + 8);
				return new Uint8Array(this._inst.exports.mem.buffer, array, len);
			}

			const loadSliceOfValues = (addr) => {
				const array = getInt64(addr + 0);
				const len = getInt64(addr + 8);
				const a = new Array(len);
				for (let i = 0; i < len; i++) {
					a[i] = loadValue(array + i * 8);
				}
				return a;
			}

			const loadString = (addr) => {
				const saddr = getInt64(addr + 0);
				const len = getInt64(addr + 8);
				return decoder.decode(new DataView(this._inst.exports.mem.buffer, saddr, len));
			}

			const testCallExport = (a, b) => {
				this._inst.exports.testExport0();
				return this._inst.exports.testExport(a, b);
			}

			const timeOrigin = Date.now() - performance.now();
			this.importObject = {
				_gotest: {
					add: (a, b) => a + b,
					callExport: testCallExport,
				},
				gojs: {
					// Go's SP does not change as long as no Go code is running. Some operations (e.g. calls, getters and setters)
					// may synchronously trigger a Go event handler. This makes Go code get executed in the middle of the imported
					// function. A goroutine can switch to a new stack if the current stack is too small (see morestack function).
					// This changes the SP, thus we have to update the SP used by the imported function.

					// func wasmExit(code int32)
					"runtime.wasmExit": (sp) => {
						sp >>>= 0;
						const code = this.mem.getInt32(sp + 8, true);
						this.exited = true;
						delete this._inst;
						delete this._values;
						delete this._goRefCounts;
						delete this._ids;
						delete this._idPool;
						this.exit(code);
					},

					// func wasmWrite(fd uintptr, p unsafe.Pointer, n int32)
					"runtime.wasmWrite": (sp) => {
						sp >>>= 0;
						const fd = getInt64(sp + 8);
						const p = getInt64(sp + 16);
						const n = this.mem.getInt32(sp + 24, true);
						fs.writeSync(fd, new Uint8Array(this._inst.exports.mem.buffer, p, n));
					},

					// func resetMemoryDataView()
					"runtime.resetMemoryDataView": (sp) => {
						sp >>>= 0;
						this.mem = new DataView(this._inst.exports.mem.buffer);
					},

					// func nanotime1() int64
					"runtime.nanotime1": (sp) => {
						sp >>>= 0;
						setInt64(sp + 8, (timeOrigin + performance.now()) * 1000000);
					},

					// func walltime() (sec int64, nsec int32)
					"runtime.walltime": (sp) => {
						sp >>>= 0;
						const msec = (new Date).getTime();
						setInt64(sp + 8, msec / 1000);
						this.mem.setInt32(sp + 16, (msec % 1000) * 1000000, true);
					},

					// func scheduleTimeoutEvent(delay int64) int32
					"runtime.scheduleTimeoutEvent": (sp) => {
						sp >>>= 0;
						const id = this._nextCallbackTimeoutID;
						this._nextCallbackTimeoutID++;
						this._scheduledTimeouts.set(id, setTimeout(
							() => {
								this._resume();
								while (this._scheduledTimeouts.has(id)) {
									// for some reason Go failed to register the timeout event, log and try again
									// (temporary workaround for https://github.com/golang/go/issues/28975)
									console.warn("scheduleTimeoutEvent: missed timeout event");
									this._resume();
								}
							},
							getInt64(sp + 8),
						));
						this.mem.setInt32(sp + 16, id, true);
					},

					// func clearTimeoutEvent(id int32)
					"runtime.clearTimeoutEvent": (sp) => {
						sp >>>= 0;
						const id = this.mem.getInt32(sp + 8, true);
						clearTimeout(this._scheduledTimeouts.get(id));
						this._scheduledTimeouts.delete(id);
					},

					// func getRandomData(r []byte)
					"runtime.getRandomData": (sp) => {
						sp >>>= 0;
						crypto.getRandomValues(loadSlice(sp + 8));
					},

					// func finalizeRef(v ref)
					"syscall/js.finalizeRef": (sp) => {
						sp >>>= 0;
						const id = this.mem.getUint32(sp + 8, true);
						this._goRefCounts[id]--;
						if (this._goRefCounts[id] === 0) {
							const v = this._values[id];
							this._values[id] = null;
							this._ids.delete(v);
							this._idPool.push(id);
						}
					},

					// func stringVal(value string) ref
					"syscall/js.stringVal": (sp) => {
						sp >>>= 0;
						storeValue(sp + 24, loadString(sp + 8));
					},

					// func valueGet(v ref, p string) ref
					"syscall/js.valueGet": (sp) => {
						sp >>>= 0;
						const result = Reflect.get(loadValue(sp + 8), loadString(sp + 16));
						sp = this._inst.exports.getsp() >>> 0; // see comment above
						storeValue(sp + 32, result);
					},

					// func valueSet(v ref, p string, x ref)
					"syscall/js.valueSet": (sp) => {
						sp >>>= 0;
						Reflect.set(loadValue(sp + 8), loadString(sp + 16), loadValue(sp + 32));
					},

					// func valueDelete(v ref, p string)
					"syscall/js.valueDelete": (sp) => {
						sp >>>= 0;
						Reflect.deleteProperty(loadValue(sp + 8), loadString(sp + 16));
					},

					// func valueIndex(v ref, i int) ref
					"syscall/js.valueIndex": (sp) => {
						sp >>>= 0;
						storeValue(sp + 24, Reflect.get(loadValue(sp + 8), getInt64(sp + 16)));
					},

					// valueSetIndex(v ref, i int, x ref)
					"syscall/js.valueSetIndex": (sp) => {
						sp >>>= 0;
						Reflect.set(loadValue(sp + 8), getInt64(sp + 16), loadValue(sp + 24));
					},

					// func valueCall(v ref, m string, args []ref) (ref, bool)
					"syscall/js.valueCall": (sp) => {
						sp >>>= 0;
						try {
							const v = loadValue(sp + 8);
							const m = Reflect.get(v, loadString(sp + 16));
							const args = loadSliceOfValues(sp + 32);
							const result = Reflect.apply(m, v, args);
							sp = this._inst.exports.getsp() >>> 0; // see comment above
							storeValue(sp + 56, result);
							this.mem.setUint8(sp + 64, 1);
						} catch (err) {
							sp = this._inst.exports.getsp() >>> 0; // see comment above
							storeValue(sp + 56, err);
							this.mem.setUint8(sp + 64, 0);
						}
					},

					// func valueInvoke(v ref, args []ref) (ref, bool)
					"syscall/js.valueInvoke": (sp) => {
						sp >>>= 0;
						try {
							const v = loadValue(sp + 8);
							const args = loadSliceOfValues(sp + 16);
							const result = Reflect.apply(v, undefined, args);
							sp = this._inst.exports.getsp() >>> 0; // see comment above
							storeValue(sp + 40, result);
							this.mem.setUint8(sp + 48, 1);
						} catch (err) {
							sp = this._inst.exports.getsp() >>> 0; // see comment above
							storeValue(sp + 40, err);
							this.mem.setUint8(sp + 48, 0);
						}
					},

					// func valueNew(v ref, args []ref) (ref, bool)
					"syscall/js.valueNew": (sp) => {
						sp >>>= 0;
						try {
							const v = loadValue(sp + 8);
							const args = loadSliceOfValues(sp + 16);
							const result = Reflect.construct(v, args);
							sp = this._inst.exports.getsp() >>> 0; // see comment above
							storeValue(sp + 40, result);
							this.mem.setUint8(sp + 48, 1);
						} catch (err) {
							sp = this._inst.exports.getsp() >>> 0; // see comment above
							storeValue(sp + 40, err);
							this.mem.setUint8(sp + 48, 0);
						}
					},

					// func valueLength(v ref) int
					"syscall/js.valueLength": (sp) => {
						sp >>>= 0;
						setInt64(sp + 16, parseInt(loadValue(sp + 8).length));
					},

					// valuePrepareString(v ref) (ref, int)
					"syscall/js.valuePrepareString": (sp) => {
						sp >>>= 0;
						const str = encoder.encode(String(loadValue(sp + 8)));
						storeValue(sp + 16, str);
						setInt64(sp + 24, str.length);
					},

					// valueLoadString(v ref, b []byte)
					"syscall/js.valueLoadString": (sp) => {
						sp >>>= 0;
						const str = loadValue(sp + 8);
						loadSlice(sp + 16).set(str);
					},

					// func valueInstanceOf(v ref, t ref) bool
					"syscall/js.valueInstanceOf": (sp) => {
						sp >>>= 0;
						this.mem.setUint8(sp + 24, (loadValue(sp + 8) instanceof loadValue(sp + 16)) ? 1 : 0);
					},

					// func copyBytesToGo(dst []byte, src ref) (int, bool)
					"syscall/js.copyBytesToGo": (sp) => {
						sp >>>= 0;
						const dst = loadSlice(sp + 8);
						const src = loadValue(sp + 32);
						if (!(src instanceof Uint8Array || src instanceof Uint8ClampedArray)) {
							this.mem.setUint8(sp + 48, 0);
							return;
						}
						const toCopy = src.subarray(0, dst.length);
						dst.set(toCopy);
						setInt64(sp + 40, toCopy.length);
						this.mem.setUint8(sp + 48, 1);
					},

					// func copyBytesToJS(dst ref, src []byte) (int, bool)
					"syscall/js.copyBytesToJS": (sp) => {
						sp >>>= 0;
						const dst = loadValue(sp + 8);
						const src = loadSlice(sp + 16);
						if (!(dst instanceof Uint8Array || dst instanceof Uint8ClampedArray)) {
							this.mem.setUint8(sp + 48, 0);
							return;
						}
						const toCopy = src.subarray(0, dst.length);
						dst.set(toCopy);
						setInt64(sp + 40, toCopy.length);
						this.mem.setUint8(sp + 48, 1);
					},

					"debug": (value) => {
						console.log(value);
					},
				}
			};
		}

		async run(instance) {
			if (!(instance instanceof WebAssembly.Instance)) {
				throw new Error("Go.run: WebAssembly.Instance expected");
			}
			this._inst = instance;
			this.mem = new DataView(this._inst.exports.mem.buffer);
			this._values = [ // JS values that Go currently has references to, indexed by reference id
				NaN,
				0,
				null,
				true,
				false,
				globalThis,
				this,
			];
			this._goRefCounts = new Array(this._values.length).fill(Infinity); // number of references that Go has to a JS value, indexed by reference id
			this._ids = new Map([ // mapping from JS values to reference ids
				[0, 1],
				[null, 2],
				[true, 3],
				[false, 4],
				[globalThis, 5],
				[this, 6],
			]);
			this._idPool = [];   // unused ids that have been garbage collected
			this.exited = false; // whether the Go program has exited

			// Pass command line arguments and environment variables to WebAssembly by writing them to the linear memory.
			let offset = 4096;

			const strPtr = (str) => {
				const ptr = offset;
				const bytes = encoder.encode(str + "\0");
				new Uint8Array(this.mem.buffer, offset, bytes.length).set(bytes);
				offset += bytes.length;
				if (offset % 8 !== 0) {
					offset += 8 - (offset % 8);
				}
				return ptr;
			};

			const argc = this.argv.length;

			const argvPtrs = [];
			this.argv.forEach((arg) => {
				argvPtrs.push(strPtr(arg));
			});
			argvPtrs.push(0);

			const keys = Object.keys(this.env).sort();
			keys.forEach((key) => {
				argvPtrs.push(strPtr(`${key}=${this.env[key]}`));
			});
			argvPtrs.push(0);

			const argv = offset;
			argvPtrs.forEach((ptr) => {
				this.mem.setUint32(offset, ptr, true);
				this.mem.setUint32(offset + 4, 0, true);
				offset += 8;
			});

			// The linker guarantees global data starts from at least wasmMinDataAddr.
			// Keep in sync with cmd/link/internal/ld/data.go:wasmMinDataAddr.
			const wasmMinDataAddr = 4096 + 8192;
			if (offset >= wasmMinDataAddr) {
				throw new Error("total length of command line and environment variables exceeds limit");
			}

			this._inst.exports.run(argc, argv);
			if (this.exited) {
				this._resolveExitPromise();
			}
			await this._exitPromise;
		}

		_resume() {
			if (this.exited) {
				throw new Error("Go program has already exited");
			}
			this._inst.exports.resume();
			if (this.exited) {
				this._resolveExitPromise();
			}
		}

		_makeFuncWrapper(id) {
			const go = this;
			return function () {
				const event = { id: id, this: this, args: arguments };
				go._pendingEvent = event;
				go._resume();
				return event.result;
			};
		}
	}
})();

;// CONCATENATED MODULE: external "node:v8"
const external_node_v8_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:v8");
;// CONCATENATED MODULE: ./src/cue/wasm-runtime.ts
// Starts the Go WebAssembly program (src/cue/shim) once and returns the function
// through which the engine is called. The sandbox must be installed before
// wasm_exec.js runs, hence the order of these two side-effect imports.








// Names shared with src/cue/shim/bridge_js.go.
const CALL_GLOBAL = '__timoniFleetCue';
const READY_GLOBAL = '__timoniFleetCueReady';
/**
 * Where cue.wasm.gz may be, relative to this module: beside the bundled dist/index.js,
 * one level up from the bundled dist/cli/index.js, or in wasm/ beside the sources.
 */
const WASM_CANDIDATES = ['cue.wasm.gz', '../cue.wasm.gz', 'wasm/cue.wasm.gz'];
function locateWasm(moduleUrl = import.meta.url) {
    const here = (0,external_node_path_namespaceObject.dirname)((0,external_node_url_namespaceObject.fileURLToPath)(moduleUrl));
    const tried = [];
    for (const candidate of WASM_CANDIDATES) {
        const path = (0,external_node_path_namespaceObject.join)(here, candidate);
        if ((0,external_node_fs_.existsSync)(path))
            return path;
        tried.push(path);
    }
    throw new Error(`CUE engine WebAssembly (cue.wasm.gz) not found; looked at: ${tried.join(', ')}. Run \`npm run build:cue\`.`);
}
/** Set to 1 to let V8 recompile hot engine code with its optimizing tier (see below). */
const TIER_UP_VARIABLE = 'TIMONI_FLEET_CUE_WASM_TIERUP';
/**
 * Keeps V8 on its baseline WebAssembly compiler (Liftoff). Go's wasm functions are huge,
 * and V8's tier-up recompiles them with TurboFan while the first loads run: measured
 * on 2 busy cores, the first load of the Kubernetes module fixture took 5-13 s with
 * tier-up and 1.4-2.1 s without, for about half the CPU time over four loads (bench/cue.ts
 * reports both). The flag is process-wide; the only other WebAssembly in a Node process
 * is usually undici's small HTTP parser.
 */
function preferBaselineCompiler() {
    if (process.env[TIER_UP_VARIABLE] === '1')
        return;
    (0,external_node_v8_namespaceObject.setFlagsFromString)('--liftoff-only');
}
function goConstructor() {
    const Go = globalThis.Go;
    if (typeof Go !== 'function')
        throw new Error('wasm_exec.js did not define globalThis.Go; the CUE engine cannot start');
    return Go;
}
/** The error for a call during which Go stopped: out of memory said plainly, the dump left out. */
function wasm_runtime_stoppedError(method, exitCode, limitMiB) {
    const output = goFatalOutput() ?? '';
    if (/out of memory/.test(output))
        return new Error(memoryLimitMessage(limitMiB));
    const first = output.split('\n').slice(0, 2).join(' ').trim();
    return new Error(`the CUE engine stopped while running ${method} (exit code ${exitCode ?? 'unknown'})${first ? `: ${first}` : ''}`);
}
/** Loads, instantiates and starts the engine; resolves once Go has registered its entry point. */
async function startWasm(options = {}) {
    const memoryLimitMiB = options.memoryLimitMiB ?? DEFAULT_MEMORY_LIMIT_MIB;
    const path = locateWasm();
    let bytes;
    try {
        bytes = (0,external_node_zlib_namespaceObject.gunzipSync)((0,external_node_fs_.readFileSync)(path));
    }
    catch (error) {
        throw new Error(`cannot read the CUE engine WebAssembly ${path}: ${error.message}`, { cause: error });
    }
    const Go = goConstructor();
    const go = new Go();
    go.argv = ['cue-shim'];
    go.env = {};
    let exitCode;
    go.exit = (code) => {
        exitCode = code;
    };
    preferBaselineCompiler();
    const { WebAssembly: wasmApi } = globalThis;
    const { instance } = await wasmApi.instantiate(withMemoryLimit(bytes, memoryLimitMiB), go.importObject);
    const global = globalThis;
    const ready = new Promise((resolve) => {
        global[READY_GLOBAL] = resolve;
    });
    const exited = go.run(instance).then(() => {
        throw new Error(`the CUE engine WebAssembly exited during start-up (exit code ${exitCode ?? 'unknown'})`);
    });
    try {
        await Promise.race([ready, exited]);
    }
    finally {
        delete global[READY_GLOBAL];
    }
    const call = global[CALL_GLOBAL];
    if (typeof call !== 'function')
        throw new Error(`the CUE engine WebAssembly started without registering ${CALL_GLOBAL}`);
    exited.catch(() => undefined);
    return (method, request) => {
        if (exitCode !== undefined)
            throw wasm_runtime_stoppedError(method, exitCode, memoryLimitMiB);
        let response;
        try {
            response = call(method, request);
        }
        catch (error) {
            if (exitCode !== undefined || goFatalOutput() !== undefined)
                throw wasm_runtime_stoppedError(method, exitCode, memoryLimitMiB);
            throw error;
        }
        if (exitCode !== undefined || goFatalOutput() !== undefined)
            throw wasm_runtime_stoppedError(method, exitCode, memoryLimitMiB);
        if (typeof response !== 'string')
            throw new Error(`the CUE engine returned no response to ${method}`);
        return response;
    };
}

;// CONCATENATED MODULE: ./src/cue/engine.ts






/** Splits the caller's files into text and base64 (bytes) for the JSON request. */
function encodeFiles(files) {
    const text = {};
    const binary = {};
    for (const [path, content] of Object.entries(files)) {
        if (typeof content === 'string')
            text[path] = content;
        else if (content instanceof Uint8Array)
            binary[path] = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64');
        else
            throw new TypeError(`file ${JSON.stringify(path)}: content must be a string or a Uint8Array`);
    }
    return { files: text, binaryFiles: binary };
}
/** The blocking call offered as one answered through the event loop (the WebAssembly engine runs on this thread). */
function answeredAtOnce(bridge) {
    return (method, request) => new Promise((resolve) => resolve(bridge(method, request)));
}
/** The CUE engine backed by cuelang.org/go: the Go shim, native or compiled to WebAssembly. */
class BridgeCueEngine {
    #bridge;
    #later;
    kind;
    constructor(bridge, later, kind) {
        this.#bridge = bridge;
        this.#later = later;
        this.kind = kind;
    }
    #fileSets = new FileSets();
    /** The engine's number for these cue.mod files, sending them when it has none. */
    #fileSet(shared, digest) {
        const known = this.#fileSets.known(digest);
        if (known !== undefined)
            return known;
        const { fileSet } = invoke(this.#bridge, 'putFiles', encodeFiles(shared));
        this.#fileSets.remember(digest, fileSet);
        return fileSet;
    }
    load(options) {
        const first = this.#loadRequest(options);
        let answer;
        try {
            answer = invoke(this.#bridge, 'load', first.request);
        }
        catch (error) {
            answer = invoke(this.#bridge, 'load', this.#requestAgain(options, first, error));
        }
        return new BridgeCueValue(this.#bridge, answer.handle);
    }
    async loadAsync(options) {
        const first = this.#loadRequest(options);
        let answer;
        try {
            answer = await invokeLater(this.#later, 'load', first.request);
        }
        catch (error) {
            answer = await invokeLater(this.#later, 'load', this.#requestAgain(options, first, error));
        }
        return new BridgeCueValue(this.#bridge, answer.handle);
    }
    /** The load's request made again when the engine lost its cue.mod files (they are sent anew); else rethrows. */
    #requestAgain(options, first, error) {
        if (!first.digest || !isUnknownSet(error))
            throw error;
        this.#fileSets.forget(first.digest);
        return this.#loadRequest(options).request;
    }
    /**
     * The load's request: a module's cue.mod files go once per engine (file-sets.ts) and are
     * named by number; the load sends its own. `digest` names the cue.mod files, if any.
     */
    #loadRequest(options) {
        const { shared, own } = splitFiles(options.files);
        const digest = Object.keys(shared).length === 0 ? undefined : this.#fileSets.digest(shared);
        const fileSet = digest === undefined ? 0 : this.#fileSet(shared, digest);
        const { files, binaryFiles } = encodeFiles(digest === undefined ? options.files : own);
        const request = {
            files,
            binaryFiles,
            fileSet,
            dir: options.dir ?? '.',
            moduleRoot: options.moduleRoot ?? '',
            args: options.args ?? [],
            package: options.package ?? '',
            tags: options.tags ?? [],
            tagVars: options.tagVars ?? {},
            dataFiles: options.dataFiles ?? false,
            acceptLegacyModules: options.acceptLegacyModules ?? true,
            displayNames: options.displayNames ?? {},
        };
        return digest === undefined ? { request } : { request, digest };
    }
    compile(source, options = {}) {
        const { handle } = invoke(this.#bridge, 'compile', {
            source,
            filename: options.filename ?? '',
            scope: options.scope ?? null,
        });
        return new BridgeCueValue(this.#bridge, handle);
    }
    injectRuntimeValues(filename, content, values) {
        return invoke(this.#bridge, 'injectRuntimeValues', { filename, content, values });
    }
    listRuntimeAttributes(filename, content) {
        return invoke(this.#bridge, 'listRuntimeAttributes', { filename, content });
    }
    mergeInstanceValues(options) {
        return invoke(this.#bridge, 'mergeInstanceValues', {
            base: options.base,
            overlays: options.overlays,
            package: options.packageName ?? 'main',
        });
    }
    version() {
        return invoke(this.#bridge, 'version', {});
    }
    liveValues() {
        return invoke(this.#bridge, 'stats', {}).handles;
    }
}
/** Forces an engine: `native`, `wasm`, or `auto` (the default: native where it runs). */
const ENGINE_VARIABLE = 'TIMONI_FLEET_CUE_ENGINE';
/** The engine asked for by TIMONI_FLEET_CUE_ENGINE (default auto). */
function engineChoice(env = process.env) {
    const value = (env[ENGINE_VARIABLE] ?? '').trim() || 'auto';
    if (value === 'auto' || value === 'native' || value === 'wasm')
        return value;
    throw new Error(`${ENGINE_VARIABLE} must be auto, native or wasm, not ${JSON.stringify(value)}`);
}
/** Why the native engine is not used by `auto`, once it was tried (for diagnostics and the bench). */
let nativeUnavailable;
function nativeEngineUnavailable() {
    return nativeUnavailable;
}
const started = new Map();
/**
 * The process's engine of one kind, started on first use and shared afterwards (the
 * WebAssembly engine can only run once per process). Throws when it cannot start.
 */
function startCueEngine(kind, options = {}) {
    let engine = started.get(kind);
    if (!engine) {
        engine = kind === 'native'
            ? startNative(options).then((native) => {
                const calls = deferFrees(native.bridge, native.later);
                return new BridgeCueEngine(calls.bridge, calls.later, 'native');
            })
            : startWasm(options).then((bridge) => {
                const calls = deferFrees(bridge, answeredAtOnce(bridge));
                return new BridgeCueEngine(calls.bridge, calls.later, 'wasm');
            });
        started.set(kind, engine);
        engine.catch(() => started.delete(kind));
    }
    return engine;
}
let chosen;
/**
 * The process's engine, started on first use (native where this platform has a working
 * build, else WebAssembly; TIMONI_FLEET_CUE_ENGINE forces one) and shared afterwards.
 * `memoryLimitMiB` applies when this call starts it (the action passes its
 * `cue-memory-limit` input before anything else loads it).
 */
function loadCueEngine(options = {}) {
    chosen ??= (async () => {
        const choice = engineChoice();
        if (choice !== 'auto')
            return startCueEngine(choice, options);
        try {
            return await startCueEngine('native', options);
        }
        catch (error) {
            nativeUnavailable = error.message;
            return startCueEngine('wasm', options);
        }
    })().catch((error) => {
        chosen = undefined;
        throw error;
    });
    return chosen;
}

;// CONCATENATED MODULE: ./src/cue/index.ts
// The CUE engine: cuelang.org/go v0.17.1 compiled to WebAssembly (src/cue/shim),
// behind a typed face. Knows nothing of Timoni, Kubernetes or GitHub.



;// CONCATENATED MODULE: ./src/bundle/types.ts
const DEFAULT_RUNTIME_NAME = '_default';

;// CONCATENATED MODULE: ./src/file-boundary.ts
// The folders that files read for a bundle may come from. On a pull request every bundle,
// runtime and local module file is the pull request author's; a committed symlink such as
// `mod/leak -> /proc/self/environ` or `runtime.cue -> /etc/passwd` would otherwise hand the
// process environment (tokens, kubeconfig keys) or any host file to CUE, which quotes it in
// errors and embeds it in objects. So every path is resolved after symlinks (realpath) and
// must land inside one of the boundary's roots: the workspace in the action; in the CLI the
// current directory, the folders of the files named on the command line and any folder
// given with --allow-path. Symlinks that stay inside keep working (Timoni's own examples link
// `cue.mod/pkg` within their repository). A refusal names the file and where it points,
// never its content.


class FileBoundaryError extends Error {
    name = 'FileBoundaryError';
}
class FileBoundary {
    roots;
    /** Roots are resolved after symlinks; a root that does not exist is ignored. */
    constructor(roots) {
        const resolved = new Set();
        for (const root of roots) {
            try {
                resolved.add((0,external_node_fs_.realpathSync)((0,external_node_path_namespaceObject.resolve)(root)));
            }
            catch {
                // A folder that does not exist holds no file to allow.
            }
        }
        this.roots = [...resolved];
    }
    /** True when a real (symlink-free) path lies inside one of the roots. */
    contains(realPath) {
        return this.roots.some((root) => {
            const rel = (0,external_node_path_namespaceObject.relative)(root, realPath);
            return rel === '' || (!rel.startsWith(`..${external_node_path_namespaceObject.sep}`) && rel !== '..' && !(0,external_node_path_namespaceObject.isAbsolute)(rel));
        });
    }
    /**
     * The real path of `path`, checked to lie inside the boundary. `shownAs` is how messages
     * name the file (the user's own spelling of it).
     */
    check(path, shownAs = path) {
        let real;
        try {
            real = (0,external_node_fs_.realpathSync)(path);
        }
        catch (error) {
            const code = error.code;
            if (code === 'ELOOP')
                throw new FileBoundaryError(`${shownAs}: symbolic link loop`);
            throw error;
        }
        if (!this.contains(real)) {
            const where = real === (0,external_node_path_namespaceObject.resolve)(path) ? 'is' : `points to ${real}, which is`;
            throw new FileBoundaryError(`${shownAs} ${where} outside ${this.describe()}; files of a bundle, runtime or module must stay inside it`);
        }
        return real;
    }
    describe() {
        if (this.roots.length === 1)
            return `the allowed folder ${this.roots[0]}`;
        return `the allowed folders (${this.roots.join(', ')})`;
    }
}
/** A boundary that allows everything: for tests and callers that read trusted files only. */
const UNBOUNDED = new FileBoundary(['/']);

// EXTERNAL MODULE: ./src/display-text.ts
var display_text = __nccwpck_require__(1849);
;// CONCATENATED MODULE: ./src/bundle/sources.ts
// The user's bundle and runtime files: read once as the user names them with -f and -r
// (.cue, .json, .yaml or .yml), laid out in the CUE engine's in-memory workspace under
// names that cannot collide, and loaded as one anonymous CUE package after the runtime
// values are injected, as Timoni's bundle and runtime builders do. Errors keep showing the
// user's own paths: a CueFilesError carries every CUE diagnostic with its file and line.





class SourceFileError extends Error {
    path;
    constructor(path, message) {
        super(`${path}: ${message}`);
        this.path = path;
        this.name = 'SourceFileError';
    }
}
const FORMATS = { '.cue': 'cue', '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };
function sourceFormat(path) {
    const format = FORMATS[(0,external_node_path_namespaceObject.extname)(path).toLowerCase()];
    if (!format) {
        throw new SourceFileError(path, `unsupported file extension ${(0,display_text/* quote */.h)((0,external_node_path_namespaceObject.extname)(path))} (expected .cue, .json, .yaml or .yml)`);
    }
    return format;
}
/**
 * Reads the files in the order given; the order decides the CUE field order of the result.
 * Each must resolve, after symlinks, inside the boundary (by default the working directory).
 */
function readSourceFiles(paths, cwd, boundary = new FileBoundary([cwd])) {
    return paths.map((path) => {
        const format = sourceFormat(path);
        const absolutePath = (0,external_node_path_namespaceObject.resolve)(cwd, path);
        if (!(0,external_node_fs_.existsSync)(absolutePath))
            throw new SourceFileError(path, 'no such file');
        const real = checked(boundary, absolutePath, path);
        if ((0,external_node_fs_.statSync)(real).isDirectory())
            throw new SourceFileError(path, 'is a directory, expected a file');
        return { path, absolutePath, format, content: (0,external_node_fs_.readFileSync)(real, 'utf8') };
    });
}
function checked(boundary, path, shownAs) {
    try {
        return boundary.check(path, shownAs);
    }
    catch (error) {
        throw new SourceFileError(shownAs, error instanceof Error ? error.message.replace(`${shownAs} `, '') : String(error));
    }
}
const WALK_ENTRY_LIMIT = 50_000;
/**
 * Walks a folder in name order, following symlinks that stay inside the boundary (never
 * into a folder it is already inside, so a link to a parent cannot loop) and refusing
 * those that leave it.
 * Calls `visit` with the path (as reached) and the real path of every regular file.
 */
function walkInside(root, boundary, visit, skip = () => false, shownFrom = root) {
    let entries = 0;
    const walk = (dir, ancestors) => {
        const realDir = boundary.check(dir, (0,external_node_path_namespaceObject.relative)(shownFrom, dir) || dir);
        // A link to a folder above it would walk forever; the same folder under two names is fine.
        if (ancestors.has(realDir))
            return;
        const inside = new Set(ancestors).add(realDir);
        for (const name of (0,external_node_fs_.readdirSync)(dir).sort()) {
            // Links between folders can multiply the paths of a small tree; a module is never this big.
            if (++entries > WALK_ENTRY_LIMIT)
                throw new FileBoundaryError(`${shownFrom}: more than ${WALK_ENTRY_LIMIT} files and folders (links between folders?)`);
            const path = (0,external_node_path_namespaceObject.join)(dir, name);
            const real = boundary.check(path, (0,external_node_path_namespaceObject.join)((0,external_node_path_namespaceObject.relative)(shownFrom, dir), name) || path);
            const stat = (0,external_node_fs_.statSync)(real);
            if (stat.isDirectory()) {
                if (!skip(name))
                    walk(path, inside);
            }
            else if (stat.isFile())
                visit(path, real);
        }
    };
    walk(root, new Set());
}
/** The name a file gets in the engine's workspace: its index keeps names unique and ordered. */
function workspaceName(workspace, index, file) {
    const stem = (0,external_node_path_namespaceObject.basename)(file.path).replace(/\.(cue|json|ya?ml)$/i, '');
    return `${workspace}/${index}.${stem}.cue`;
}
/**
 * The files of the CUE module the bundle lives in (cue.mod/ under the working directory),
 * so that bundles may import packages as they can with Timoni's --workdir. Empty when the
 * working directory is not a CUE module.
 */
function readCueModuleFiles(workdir, boundary = new FileBoundary([workdir])) {
    const root = (0,external_node_path_namespaceObject.join)(workdir, 'cue.mod');
    const files = {};
    if (!(0,external_node_fs_.existsSync)(root) || !(0,external_node_fs_.statSync)(root).isDirectory())
        return files;
    walkInside(root, boundary, (path, real) => {
        files[(0,external_node_path_namespaceObject.relative)(workdir, path).split('\\').join('/')] = (0,external_node_fs_.readFileSync)(real, 'utf8');
    }, undefined, workdir);
    return files;
}
/** Resolves a relative `file://` module URL against the directory of the file that declared it. */
function resolveFileModuleUrl(url, declaringFile) {
    const prefix = 'file://';
    if (!url.startsWith(prefix))
        return url;
    const path = url.slice(prefix.length);
    if ((0,external_node_path_namespaceObject.isAbsolute)(path) || declaringFile === undefined)
        return url;
    const joined = (0,external_node_path_namespaceObject.join)(declaringFile, '..', path);
    return prefix + joined;
}
// An error in the user's CUE, JSON or YAML files, with every CUE diagnostic (message,
// field path, file, line and column) kept so that the CLI can print them and the action
// can turn them into annotations on the file and line. Positions in the user's own files
// come first; positions in files timoni-fleet generates (the schema) come last.
const at = (position) => `${position.file}:${position.line}:${position.column}`;
function sources_formatDiagnostic(diagnostic) {
    const [first, ...others] = diagnostic.positions;
    const where = first ? `${at(first)}: ` : '';
    const path = diagnostic.path ? `${diagnostic.path}: ` : '';
    const also = others.length > 0 ? ` (also ${others.map(at).join(', ')})` : '';
    return `${where}${path}${diagnostic.message}${also}`;
}
/** The diagnostic with positions in the given user files first, in their original order otherwise. */
function userPositionsFirst(diagnostic, userFiles) {
    const inUserFiles = diagnostic.positions.filter((p) => userFiles.has(p.file));
    const elsewhere = diagnostic.positions.filter((p) => !userFiles.has(p.file));
    return { ...diagnostic, positions: [...inUserFiles, ...elsewhere] };
}
class CueFilesError extends Error {
    summary;
    diagnostics;
    constructor(summary, diagnostics, userFiles = new Set()) {
        const ordered = diagnostics.map((d) => userPositionsFirst(d, userFiles));
        super(ordered.length > 0 ? `${summary}:\n${ordered.map((d) => `  ${sources_formatDiagnostic(d)}`).join('\n')}` : summary);
        this.summary = summary;
        this.name = 'CueFilesError';
        this.diagnostics = ordered;
    }
}
function injectedSource(engine, file, values) {
    // A CUE file without a runtime attribute that has a value is passed through untouched,
    // so that every position in an error is exactly the user's.
    if (file.format === 'cue') {
        const attributes = engine.listRuntimeAttributes(file.path, file.content);
        if (!attributes.some((attribute) => attribute.name in values))
            return file.content;
    }
    return engine.injectRuntimeValues(file.path, file.content, values);
}
function loadSourcePackage(engine, input) {
    const files = { ...input.moduleFiles };
    const displayNames = {};
    const args = [];
    try {
        input.files.forEach((file, index) => {
            const name = workspaceName(input.workspace, index, file);
            files[name] = injectedSource(engine, file, input.values);
            displayNames[name] = file.path;
            args.push(name);
        });
        for (const [fileName, content] of Object.entries(input.extraFiles)) {
            const name = `${input.workspace}/${input.files.length}.${fileName}`;
            files[name] = content;
            displayNames[name] = fileName;
            args.push(name);
        }
        return engine.load({ files, args, package: '_', dataFiles: true, displayNames });
    }
    catch (error) {
        if (error instanceof CueError) {
            throw new CueFilesError(`cannot load ${input.files.map((f) => f.path).join(', ')} (${input.context})`, error.diagnostics, new Set(input.files.map((f) => f.path)));
        }
        throw error;
    }
}

;// CONCATENATED MODULE: ./src/secrets.ts
// The one rule for secrets, used by every layer: which forms of a secret value are masked,
// how text is redacted, and how a new secret reaches the caller (the action prints
// `::add-mask::` for it, so that the runner masks the log as well).
//
// The rule, for each value registered:
//   - surrounding whitespace is trimmed; a form shorter than MIN_SECRET_LENGTH (4)
//     characters is not masked: masking "on", "80" or "a" would garble every report while
//     hiding nothing worth hiding (the runner's log masking has the same blind spot), and it
//     keeps every replacement from making text longer, since the mask is 3 characters;
//   - a multi-line value (a PEM key) is also masked line by line, as diffs and logs split
//     lines (unless registered `wholeOnly`: a JSON document whose lines are not secret);
//   - the cheap transforms of the value are masked as well: upper and lower case, base64
//     (standard and URL-safe, with and without padding: Secret `data` is base64), hex (lower
//     and upper case), URL encoding and JSON string escaping;
//   - all forms are replaced longest first, so that a secret containing another is masked
//     whole rather than leaving a fragment around a shorter one.
//
// Code the run does not trust (runtime attributes of a pull request's bundle) is never given
// a text that holds a secret (secretIn): a text that contains a registered form or document
// (the kubeconfig text, see registerDocument) anywhere, or whose base64, hex, URL or
// JSON-escape decoding does (a base64 kubeconfig holds its key at any alignment), and a URL
// that carries a password, registered or not. Masking could not help once such a text is
// given: the bundle spaces it out.
//
// What masking cannot promise: a value that the bundle's author transforms in any other way
// (reversed, spaced out, split in two, hashed and truncated, one character per object name)
// is not recognised. That is why the action refuses runtime queries of cluster Secrets on
// pull requests unless the workflow opts in, and why the README's threat model recommends a
// least-privilege kubeconfig for diffs.
/** What a secret value is replaced with. */
const MASK = '***';
/** Forms shorter than this, after trimming, are not masked (see above). */
const MIN_SECRET_LENGTH = 4;
function base64Forms(text) {
    const standard = Buffer.from(text, 'utf8').toString('base64');
    const unpadded = standard.replace(/=+$/, '');
    const urlSafe = unpadded.replace(/\+/g, '-').replace(/\//g, '_');
    return [standard, unpadded, urlSafe];
}
/** The cheap transforms of one line of a secret (see the rule above). */
function transforms(text) {
    const hex = Buffer.from(text, 'utf8').toString('hex');
    return [
        text,
        text.toUpperCase(),
        text.toLowerCase(),
        ...base64Forms(text),
        hex,
        hex.toUpperCase(),
        encodeURIComponent(text),
        JSON.stringify(text).slice(1, -1),
    ];
}
/** Every form of a secret value that is masked, each at least MIN_SECRET_LENGTH long. */
function secretForms(value, wholeOnly = false) {
    const trimmed = value.trim();
    // The value as given too (a PEM key with its final line break), as the runner masks it.
    const sources = value !== trimmed && trimmed.length >= MIN_SECRET_LENGTH ? [trimmed, value] : [trimmed];
    if (!wholeOnly && /[\r\n]/.test(trimmed))
        sources.push(...trimmed.split(/\r?\n|\r/).map((line) => line.trim()));
    const forms = new Set();
    for (const source of sources) {
        if (source.length < MIN_SECRET_LENGTH)
            continue;
        for (const form of transforms(source))
            if (form.trim().length >= MIN_SECRET_LENGTH)
                forms.add(form);
    }
    return [...forms];
}
/** The strings that `maskSecrets` replaces for a list of secret values, longest first. */
function maskableValues(secrets) {
    const candidates = new Set();
    for (const secret of secrets)
        for (const form of secretForms(secret))
            candidates.add(form);
    return [...candidates].sort((left, right) => right.length - left.length || (left < right ? -1 : 1));
}
function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
/** Replaces exactly the given forms (no further transforms), longest first. */
function formMasker(forms) {
    if (forms.length === 0)
        return (text) => text;
    const longestFirst = [...forms].sort((left, right) => right.length - left.length || (left < right ? -1 : 1));
    // One alternation, longest first: at each position the longest form wins.
    const pattern = new RegExp(longestFirst.map(escapeRegExp).join('|'), 'g');
    return (text) => text.replace(pattern, MASK);
}
/** A masking function bound to one list of secrets, compiled once. */
function secretMasker(secrets) {
    return formMasker(maskableValues(secrets));
}
/** Replaces every form of every secret value (see the rule above) with MASK. */
function maskSecrets(text, secrets) {
    return secretMasker(secrets)(text);
}
/** True when the text contains any form of any of the secret values. */
function containsSecret(text, secrets) {
    return maskableValues(secrets).some((value) => text.includes(value));
}
/** `scheme://user:password@host`: a URL that carries a password, anywhere in a text. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]*:[^/?#@\s]+@/i;
/** True when the text holds a URL with a password (`https://x-access-token:...@github.com/o/r`, `postgres://u:p@h`). */
function containsUrlWithPassword(text) {
    return URL_WITH_PASSWORD.test(text);
}
/**
 * The text as the cheap transforms would have hidden a secret in it, undone: base64
 * (standard and URL-safe) and hex of the whole text, URL decoding and JSON unescaping.
 * Only the decodings that apply; a secret inside base64 of a longer text is not a
 * base64 form of the secret (it depends on its offset), but it is in the decoded text.
 */
function decodings(text) {
    const found = [];
    const compact = text.replace(/\s+/g, '');
    if (compact.length >= MIN_SECRET_LENGTH && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact))
        found.push(Buffer.from(compact, 'base64').toString('utf8'));
    if (compact.length >= MIN_SECRET_LENGTH && compact.length % 2 === 0 && /^[0-9a-f]+$/i.test(compact))
        found.push(Buffer.from(compact, 'hex').toString('utf8'));
    if (text.includes('%')) {
        try {
            found.push(decodeURIComponent(text));
        }
        catch {
            // Not URL-encoded: a lone % is ordinary text.
        }
    }
    if (text.includes('\\')) {
        try {
            const unescaped = JSON.parse(`"${text}"`);
            if (typeof unescaped === 'string')
                found.push(unescaped);
        }
        catch {
            // Not a JSON string's escapes.
        }
    }
    return found;
}
/**
 * The secrets of one run: every credential, Secret value and environment value found while
 * running is registered here. Each new form goes to the caller's callback at once, and
 * `redact` masks all of them in any text (errors, log lines).
 */
class SecretRegistry {
    forward;
    values = new Set();
    originals = new Set();
    short = new Set();
    documents = new Set();
    masker;
    constructor(forward = () => { }) {
        this.forward = forward;
    }
    /**
     * Registers a secret with all its forms. `wholeOnly` skips the line-by-line forms, for
     * documents whose lines are not secret by themselves (an exec plugin's JSON output).
     */
    register(value, wholeOnly = false) {
        if (value === undefined || value === null)
            return;
        const text = typeof value === 'string' ? value : value.toString('utf8');
        const trimmed = text.trim();
        if (!wholeOnly && trimmed.length >= MIN_SECRET_LENGTH)
            this.originals.add(text);
        // Even a value too short to redact in reports reaches the callback: the runner masks it.
        if (trimmed.length > 0 && trimmed.length < MIN_SECRET_LENGTH && !this.short.has(trimmed)) {
            this.short.add(trimmed);
            this.forward(trimmed);
        }
        for (const form of secretForms(text, wholeOnly)) {
            if (this.values.has(form))
                continue;
            this.values.add(form);
            this.masker = undefined;
            this.forward(form);
        }
    }
    /**
     * Registers a text that is secret only as a whole and is never printed whole: a
     * kubeconfig, whose lines (`apiVersion: v1`) are not secrets and whose credentials are
     * registered one by one. It is neither masked (a multi-line text never stands on one
     * line of a report) nor forwarded to the runner; `secretIn` finds it in a text or in the
     * text's decodings (so its base64, hex, URL and JSON forms too).
     */
    registerDocument(text) {
        const trimmed = text.trim();
        if (trimmed.length >= MIN_SECRET_LENGTH)
            this.documents.add(trimmed);
    }
    /** Alias of `register` for the registry client's credential values. */
    add(value) {
        this.register(value);
    }
    /** True when the value (trimmed) was registered as a secret or is a form of one. */
    isSecret(value) {
        const trimmed = value.trim();
        return trimmed !== '' && (this.values.has(trimmed) || this.short.has(trimmed));
    }
    /**
     * Whether the text holds a secret (see the rule above): 'secret' when it, or one of its
     * decodings, contains a registered form or document (or it is a value too short to mask),
     * 'password URL' when it holds a URL with a password; undefined when it holds neither.
     */
    secretIn(text) {
        const texts = [text, ...decodings(text)];
        if (this.isSecret(text))
            return 'secret';
        for (const candidate of texts) {
            for (const form of this.values)
                if (candidate.includes(form))
                    return 'secret';
            for (const document of this.documents)
                if (candidate.includes(document))
                    return 'secret';
        }
        if (texts.some(containsUrlWithPassword))
            return 'password URL';
        return undefined;
    }
    /** The values registered so far as given (reports expand them with `secretMasker`). */
    secrets() {
        return [...this.originals];
    }
    /** The text with every registered form replaced by MASK, longest first. */
    redact(text) {
        if (this.values.size === 0)
            return text;
        this.masker ??= formMasker([...this.values]);
        return this.masker(text);
    }
}
/** Variables that carry credentials of the CI job itself (the action's inputs, the runner's tokens). */
const JOB_CREDENTIAL_PREFIXES = ['INPUT_', 'ACTIONS_'];
const JOB_CREDENTIAL_NAMES = new Set(['GITHUB_TOKEN', 'GH_TOKEN', 'RUNNER_TOKEN']);
/**
 * True for an environment variable that holds a credential of the job itself: never given
 * to code the job runs on someone's behalf (runtime attributes, exec credential plugins).
 */
function isJobCredentialVariable(name) {
    const upper = name.toUpperCase();
    return JOB_CREDENTIAL_NAMES.has(upper) || JOB_CREDENTIAL_PREFIXES.some((prefix) => upper.startsWith(prefix));
}
/** The environment less the job's own credentials. */
function withoutJobCredentials(env) {
    const kept = {};
    for (const [name, value] of Object.entries(env))
        if (value !== undefined && !isJobCredentialVariable(name))
            kept[name] = value;
    return kept;
}

;// CONCATENATED MODULE: ./src/bundle/runtime-environment.ts
// Which environment variables `@timoni(runtime:...)` attributes may read, and which of
// them are secrets.
//
// Timoni's `--runtime-from-env` offers the whole environment. In a CI job the environment
// also holds the job's own credentials: the action's inputs (`INPUT_GITHUB-TOKEN`,
// `INPUT_KUBECONFIG`), the runner's tokens (`ACTIONS_RUNTIME_TOKEN`,
// `ACTIONS_ID_TOKEN_REQUEST_TOKEN`) and `GITHUB_TOKEN`. A bundle on a pull request is the
// PR author's code, so those are never offered, whatever the options say.
//
// Some variables hold text that the pull request's author chose (the branch name, their
// login). They are not secrets: masking them would let the author hide text from reviewers
// (a branch named like a registry host turns `image: host/app:1` into `image: ***:1`). They
// are offered only when named in the allow-list, and are never masked.
//
// What is never offered: a value that holds a secret of the run (a token, a key, the
// kubeconfig) anywhere in it or in one of its cheap encodings, or a URL with a password,
// as the caller's `secretIn` says (SecretRegistry.secretIn in ../secrets.ts, the one rule).
// Masking cannot help once such a value is offered: the bundle spaces it out. Under
// runtime-from-env such a variable is withheld and named to the caller (never its value);
// a variable listed in runtime-env is refused with an error naming it, as the workflow
// asked for something that is never given.
//
// What is masked: a value offered here is not a secret for being an environment value (a
// registry host, a region, `GITHUB_REPOSITORY` are shown as they are). It is masked when
// its variable's name says it holds a credential (`DB_PASSWORD`, `NPM_TOKEN`, `SSH_KEY`:
// see isCredentialName), or when it holds a URL that carries a password
// (`postgres://user:pass@host`, offered only by callers that do not withhold them: the
// CLI). Values read from cluster Secrets are masked where they are read (runtime-queries.ts).

/** Variables whose text the pull request's author controls: offered only when allow-listed, never secret. */
const AUTHOR_CONTROLLED_NAMES = new Set([
    'GITHUB_HEAD_REF',
    'GITHUB_REF_NAME',
    'GITHUB_ACTOR',
    'GITHUB_TRIGGERING_ACTOR',
    'GITHUB_ACTOR_ID',
    'GITHUB_EVENT_NAME',
]);
class RuntimeEnvironmentError extends Error {
    name = 'RuntimeEnvironmentError';
}
/** Words that say a variable holds a credential wherever they appear in its name (`GHTOKEN`, `DB_PASSWORD`). */
const CREDENTIAL_WORDS = ['TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'CREDENTIAL', 'APIKEY', 'PRIVATEKEY', 'ACCESSKEY'];
/** Short words that say so only as a whole part of the name (`SSH_KEY`, `GH_PAT`, but not `KEYCLOAK_URL`). */
const CREDENTIAL_PARTS = new Set(['KEY', 'KEYS', 'PASS', 'PWD', 'AUTH', 'CREDS', 'PAT', 'DSN']);
/** True when a variable's name says that it holds a credential. */
function isCredentialName(name) {
    const upper = name.toUpperCase();
    if (CREDENTIAL_WORDS.some((word) => upper.includes(word)))
        return true;
    return upper.split(/[^A-Z0-9]+/).some((part) => CREDENTIAL_PARTS.has(part));
}
/**
 * True when a value offered to runtime attributes is masked in reports: its variable's name
 * says it is a credential, or the value is a URL with a password. Author-controlled text is
 * never masked (masking it would let the author hide text from reviewers).
 */
function isSecretEnvironmentValue(name, value) {
    if (AUTHOR_CONTROLLED_NAMES.has(name))
        return false;
    return isCredentialName(name) || containsUrlWithPassword(value);
}
/**
 * The variables offered to runtime attributes. Undefined when none are (neither option
 * given), so that an attribute reading the environment fails as in Timoni without
 * --runtime-from-env. A listed variable that holds a secret is a RuntimeEnvironmentError
 * naming every such variable (names only).
 */
function runtimeEnvironment(env, options) {
    if (!options.all && options.allowed.length === 0)
        return undefined;
    for (const name of options.allowed) {
        if (isJobCredentialVariable(name)) {
            throw new RuntimeEnvironmentError(`runtime-env: ${name} holds a credential of the job itself and is never given to runtime attributes`);
        }
    }
    const offered = {};
    const allowed = new Set(options.allowed);
    const refused = [];
    for (const [name, value] of Object.entries(env)) {
        if (value === undefined || isJobCredentialVariable(name))
            continue;
        const listed = allowed.has(name);
        if (!listed && (!options.all || AUTHOR_CONTROLLED_NAMES.has(name)))
            continue;
        const why = options.secretIn?.(value);
        if (why === undefined)
            offered[name] = value;
        else if (listed)
            refused.push(`${name} (${why})`);
        else
            options.onWithheld?.(name, why);
    }
    if (refused.length > 0) {
        throw new RuntimeEnvironmentError(`runtime-env: ${refused.join(', ')} ${refused.length === 1 ? 'holds' : 'hold'} a secret of the run or a URL with a password, which is never given to runtime attributes (a bundle can spell it out past any masking); remove ${refused.length === 1 ? 'it' : 'them'} from runtime-env`);
    }
    return offered;
}
/** Splits a list of variable names given on several lines or separated by commas. */
function parseVariableNames(text, what) {
    const names = text
        .split(/[\n,]/)
        .map((name) => name.trim())
        .filter(Boolean);
    for (const name of names) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
            throw new RuntimeEnvironmentError(`${what}: "${name}" is not an environment variable name`);
    }
    return names;
}

;// CONCATENATED MODULE: ./src/bundle/runtime-queries.ts
// Runtime value queries as Timoni reads them: parsed from `k8s:<apiVersion>:<kind>:<namespace>:<name>`
// (namespaced objects) or `k8s:<apiVersion>:<kind>:<name>` (cluster-scoped ones), then, once
// the object is read from a cluster, each `for` expression is CUE evaluated with the object
// bound to `obj`: strings are kept, numbers, bools and null are printed as CUE prints them,
// structs and lists are errors. Values read from a v1 Secret are base64-decoded when they
// decode, and are secret. The objects are read through a reader the caller provides (the
// bundle layer knows no Kubernetes client).


class RuntimeQueryError extends Error {
    constructor(query, reason) {
        super(`runtime value query ${(0,display_text/* quote */.h)(query)}: ${reason}`);
        this.name = 'RuntimeQueryError';
    }
}
const VALUE_NAME = /^(([A-Za-z0-9][-A-Za-z0-9_]*)?[A-Za-z0-9])?$/;
// What a query may name. A query becomes a URL path on the cluster's API server, so a
// segment such as `.` or `..` (which URL resolution folds away, turning a GET of one Secret
// into a LIST of every Secret) or one holding `/`, `%` or `?` is refused before any request.
const API_VERSION = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]{0,62}$/;
/** A namespace is a DNS label. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** Object names: DNS subdomains, and the odd upper-case or underscore name some kinds allow; never `.` or `..`. */
const OBJECT_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,251}[A-Za-z0-9])?$/;
function checkSegment(query, label, value, pattern, rule) {
    if (!pattern.test(value))
        throw new RuntimeQueryError(query, `the ${label} ${(0,display_text/* quote */.h)(value)} is not valid: ${rule}`);
}
function parseRuntimeQuery(query, expressions, optional) {
    const parts = query.split(':');
    if (parts[0] !== 'k8s')
        throw new RuntimeQueryError(query, 'a query must start with "k8s:"');
    if (parts.length !== 4 && parts.length !== 5) {
        throw new RuntimeQueryError(query, `expected k8s:<apiVersion>:<kind>:<namespace>:<name> or k8s:<apiVersion>:<kind>:<name>, got ${parts.length} parts`);
    }
    const [, apiVersion = '', kind = ''] = parts;
    const namespace = parts.length === 5 ? (parts[3] ?? '') : '';
    const name = parts[parts.length - 1] ?? '';
    for (const [label, value] of [['apiVersion', apiVersion], ['kind', kind], ['name', name]]) {
        if (value === '')
            throw new RuntimeQueryError(query, `the ${label} is empty`);
    }
    if (parts.length === 5 && namespace === '')
        throw new RuntimeQueryError(query, 'the namespace is empty');
    checkSegment(query, 'apiVersion', apiVersion, API_VERSION, 'expected v1 or group/version, e.g. apps/v1');
    checkSegment(query, 'kind', kind, KIND, 'expected a kind such as ConfigMap');
    if (parts.length === 5)
        checkSegment(query, 'namespace', namespace, NAMESPACE, 'a namespace is a lowercase DNS label (letters, digits and -)');
    checkSegment(query, 'name', name, OBJECT_NAME, 'an object name is letters, digits, -, _ and . and starts and ends with a letter or digit');
    for (const { name: valueName } of expressions) {
        if (valueName.length === 0 || valueName.length > 63 || !VALUE_NAME.test(valueName)) {
            throw new RuntimeQueryError(query, `${(0,display_text/* quote */.h)(valueName)} is not a valid value name (letters, digits, - and _, 1-63 characters)`);
        }
    }
    return { query, apiVersion, kind, namespace, name, expressions, optional };
}
// Timoni base64-decodes the values it reads from a v1 Secret when they decode as standard,
// padded base64 (Go's base64.StdEncoding, which skips line breaks), and keeps them as they
// are otherwise.
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Decodes standard, padded base64; undefined when it does not decode. */
function decodeStrictBase64(text) {
    const compact = text.replace(/[\r\n]/g, '');
    if (!STRICT_BASE64.test(compact))
        return undefined;
    return Buffer.from(compact, 'base64').toString('utf8');
}
function isSecretObject(object) {
    return object.apiVersion === 'v1' && object.kind === 'Secret';
}
function evaluateExpression(engine, query, name, expression, object, secret) {
    let value;
    try {
        value = engine.compile(expression, { filename: `${query.query} (${name})`, scope: { obj: object } });
    }
    catch (error) {
        if (error instanceof CueError) {
            // CUE messages can quote field values; from a Secret they must not reach the log.
            const detail = secret ? 'details hidden because the object is a Secret' : error.message;
            throw new RuntimeQueryError(query.query, `the expression for ${name} (${expression}) failed: ${detail}`);
        }
        throw error;
    }
    try {
        const kind = value.kind();
        if (kind === 'struct' || kind === 'list') {
            throw new RuntimeQueryError(query.query, `the expression for ${name} (${expression}) returned a ${kind}; only strings, numbers and bools can be used`);
        }
        if (kind === 'string')
            return value.toJSON();
        const diagnostics = value.validate({ concrete: true });
        if (diagnostics.length > 0 || kind === 'bottom' || kind === 'incomplete' || kind === 'top') {
            const detail = secret ? 'details hidden because the object is a Secret' : (diagnostics[0]?.message ?? `the value is ${kind}`);
            throw new RuntimeQueryError(query.query, `the expression for ${name} (${expression}) has no concrete value: ${detail}`);
        }
        return value.toCUE().trim();
    }
    finally {
        value.free();
    }
}
function extractQueryValues(engine, query, object) {
    const secret = isSecretObject(object);
    return query.expressions.map(({ name, expression }) => {
        let value = evaluateExpression(engine, query, name, expression, object, secret);
        if (secret)
            value = decodeStrictBase64(value) ?? value;
        return { name, value, secret };
    });
}
/**
 * The values of every query of the runtime for one cluster, in query order. A query of a
 * v1 Secret is refused with `secretQueryRefusal` when it is set, before anything is read.
 */
async function readQueryValues(engine, runtime, cluster, readObject, secretQueryRefusal) {
    const values = [];
    for (const query of runtime.queries) {
        if (secretQueryRefusal !== undefined && query.apiVersion === 'v1' && query.kind === 'Secret') {
            throw new RuntimeQueryError(query.query, secretQueryRefusal);
        }
        if (!readObject) {
            throw new RuntimeQueryError(query.query, `runtime "${runtime.name}" has value queries, which need access to cluster ${cluster.name}; this command does not connect to clusters`);
        }
        const object = await readObject(cluster, query);
        if (object === undefined) {
            if (query.optional)
                continue;
            throw new RuntimeQueryError(query.query, `not found in cluster ${cluster.name} (set optional: true to skip a missing object)`);
        }
        values.push(...extractQueryValues(engine, query, object));
    }
    return values;
}

;// CONCATENATED MODULE: ./src/bundle/runtime.ts





function defaultCluster(kubeContext) {
    return { name: DEFAULT_RUNTIME_NAME, group: DEFAULT_RUNTIME_NAME, kubeContext };
}
function defaultRuntime(kubeContext) {
    return { name: DEFAULT_RUNTIME_NAME, clusters: [defaultCluster(kubeContext)], queries: [], isDefault: true };
}
function exportedAt(value, path) {
    const field = value.lookup(path);
    try {
        return field.exists() ? field.toJSON() : undefined;
    }
    finally {
        field.free();
    }
}
function fieldError(value, path, message) {
    const field = value.lookup(path);
    const position = field.exists() ? field.position() : undefined;
    field.free();
    return new CueFilesError(message, [{ message, path, positions: position ? [position] : [] }]);
}
// Timoni's v1alpha1 #Runtime: cluster names are lowercase DNS-like names of 1 to 63
// characters. Groups are free strings there; here they may not hold control characters,
// which would break log lines and reports (a name is printed in both).
const CLUSTER_NAME = /^(([a-z0-9][-a-z0-9_.]*)?[a-z0-9])?$/;
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
function checkCluster(clusters, label, name, group, kubeContext) {
    if (name.length < 1 || [...name].length > 63 || !CLUSTER_NAME.test(name)) {
        throw fieldError(clusters, label, `runtime cluster name ${(0,display_text/* quote */.h)(name)} is invalid: use lowercase letters, digits, "-", "_" and "." (1-63 characters, starting and ending with a letter or digit), as Timoni requires`);
    }
    for (const [field, value] of [['group', group], ['kubeContext', kubeContext]]) {
        if (CONTROL_CHARACTERS.test(value)) {
            throw fieldError(clusters, `${label}.${field}`, `runtime cluster "${name}": ${field} ${(0,display_text/* quote */.h)(value)} must be text without control characters (line breaks, escapes)`);
        }
    }
}
function readClusters(runtime) {
    const clusters = runtime.lookup('clusters');
    try {
        if (!clusters.exists())
            return [];
        return clusters.fields().map((field) => {
            const group = exportedAt(clusters, `${field.label}.group`);
            const kubeContext = exportedAt(clusters, `${field.label}.kubeContext`);
            if (typeof group !== 'string' || typeof kubeContext !== 'string') {
                throw fieldError(clusters, field.label, `runtime cluster ${(0,display_text/* quote */.h)(field.name)} needs string fields "group" and "kubeContext"`);
            }
            checkCluster(clusters, field.label, field.name, group, kubeContext);
            return { name: field.name, group, kubeContext };
        });
    }
    finally {
        clusters.free();
    }
}
function readQueries(runtime) {
    const values = exportedAt(runtime, 'values');
    if (values === undefined)
        return [];
    if (!Array.isArray(values))
        throw fieldError(runtime, 'values', 'runtime "values" must be a list of queries');
    return values.map((entry, index) => {
        const path = `values[${index}]`;
        if (typeof entry.query !== 'string')
            throw fieldError(runtime, path, `runtime.${path}.query must be a string`);
        const expressions = Object.entries((entry.for ?? {})).map(([name, expression]) => {
            if (typeof expression !== 'string') {
                throw fieldError(runtime, path, `runtime.${path}.for.${name} must be a CUE expression in a string`);
            }
            return { name, expression };
        });
        return parseRuntimeQuery(entry.query, expressions, entry.optional === true);
    });
}
/** Loads the runtime from its files; `kubeContext` names the context of the default cluster. */
function loadRuntime(engine, files, moduleFiles, kubeContext) {
    if (files.length === 0)
        return defaultRuntime(kubeContext);
    const root = loadSourcePackage(engine, {
        workspace: 'runtime',
        files,
        moduleFiles,
        values: {},
        extraFiles: {},
        context: `runtime ${files.map((f) => f.path).join(', ')}`,
    });
    try {
        const runtime = root.lookup('runtime');
        try {
            if (!runtime.exists())
                throw new CueFilesError(`no "runtime" field in ${files.map((f) => f.path).join(', ')}`, []);
            const name = exportedAt(runtime, 'name');
            if (typeof name !== 'string')
                throw fieldError(root, 'runtime', 'runtime.name must be a concrete string');
            const clusters = readClusters(runtime);
            const queries = readQueries(runtime);
            if (clusters.length === 0)
                return { name, clusters: [defaultCluster(kubeContext)], queries, isDefault: true };
            return { name, clusters, queries, isDefault: false };
        }
        finally {
            runtime.free();
        }
    }
    finally {
        root.free();
    }
}
function mergeRuntimeValues(cluster, environment, queried) {
    const values = new Map();
    for (const [name, value] of Object.entries(environment ?? {})) {
        if (value !== undefined)
            values.set(name, { value, secret: isSecretEnvironmentValue(name, value), source: 'environment' });
    }
    for (const { name, value, secret } of queried)
        values.set(name, { value, secret, source: 'query' });
    if (cluster.name !== DEFAULT_RUNTIME_NAME) {
        values.set('TIMONI_CLUSTER_NAME', { value: cluster.name, secret: false, source: 'cluster' });
        values.set('TIMONI_CLUSTER_GROUP', { value: cluster.group, secret: false, source: 'cluster' });
    }
    return values;
}
/** The plain name -> value map the CUE engine's injection takes. */
function plainValues(values) {
    const plain = {};
    for (const [name, { value }] of values)
        plain[name] = value;
    return plain;
}

;// CONCATENATED MODULE: ./src/bundle/schema-rules.ts
const NAME_RULE = 'a lowercase name of 1 to 63 characters (letters a-z, digits, "-", "_" and "."; starting and ending with a letter or digit)';
const RULES = [
    { path: 'bundle', rule: 'a bundle has the fields apiVersion, name and instances' },
    { path: 'bundle.apiVersion', rule: 'apiVersion must be "v1alpha1"' },
    { path: 'bundle.name', rule: `the bundle name must be ${NAME_RULE}` },
    { path: 'bundle.instances', rule: `instances is a struct of instances by name; an instance name must be ${NAME_RULE}` },
    { path: 'bundle.instances.*', rule: 'an instance has the fields module, namespace and values' },
    { path: 'bundle.instances.*.module', rule: 'module has the fields url, version (default "latest") and digest (optional), and no other' },
    { path: 'bundle.instances.*.module.url', rule: 'the module URL must be a string starting with oci:// or file://' },
    { path: 'bundle.instances.*.module.version', rule: 'the module version must be a string (a tag, or "latest")' },
    { path: 'bundle.instances.*.module.digest', rule: 'the module digest must be a string (sha256:...)' },
    { path: 'bundle.instances.*.namespace', rule: `the namespace must be ${NAME_RULE}` },
    { path: 'bundle.instances.*.values', rule: 'values must be a struct' },
];
/** CUE path labels, quoted labels kept whole (`bundle.instances."my.app".module`). */
function labels(path) {
    return path.match(/"(?:[^"\\]|\\.)*"|[^.]+/g) ?? [];
}
function matches(pattern, path) {
    const want = pattern.split('.');
    const have = labels(path);
    return want.length === have.length && want.every((label, i) => label === '*' || label === have[i]);
}
/** The rule of the field at `path`, if the schema has one. */
function schemaRule(path) {
    return RULES.find((r) => matches(r.path, path))?.rule;
}
/** The rule an error breaks: a field the schema does not allow breaks its parent's (an instance name that is no valid name is one). */
function ruleFor(diagnostic) {
    if (!isNotAllowed(diagnostic))
        return schemaRule(diagnostic.path);
    const parent = labels(diagnostic.path).slice(0, -1).join('.');
    // Values are open: a field not allowed there is the user's own definition speaking.
    return matches('bundle.instances.*.values', parent) ? undefined : schemaRule(parent);
}
const isNotAllowed = (diagnostic) => diagnostic.message === 'field not allowed';
/**
 * The diagnostic without positions in the schema file, and, when the schema took part in
 * it, its message in plain words: the regular expression CUE prints replaced by the rule,
 * a field the schema does not allow followed by the fields it does.
 */
function inPlainWords(diagnostic, schemaFile) {
    const fromSchema = diagnostic.positions.some((p) => p.file === schemaFile);
    const rule = ruleFor(diagnostic);
    // The closed structs of the schema (bundle, an instance, module) refuse a field without naming their own line.
    if (!fromSchema && !(rule && isNotAllowed(diagnostic)))
        return diagnostic;
    const positions = diagnostic.positions.filter((p) => p.file !== schemaFile);
    if (!rule)
        return { ...diagnostic, positions };
    // `invalid value "x" (out of bound =~"^...$")`: the bound is the schema's text.
    const message = diagnostic.message.replace(/\s*\((?:out of bound|does not satisfy) .*\)$/, '');
    return { ...diagnostic, positions, message: `${message}: ${rule}` };
}

;// CONCATENATED MODULE: ./src/bundle/bundle.ts


// The bundle schema timoni-fleet validates against, with the same rules as Timoni's
// v1alpha1 #Bundle: apiVersion v1alpha1; bundle name, instance names and namespaces are
// lowercase DNS-like names of 1 to 63 characters; `module` is closed (url, version with
// default "latest", optional digest); values are open. It is loaded beside the user's
// files as one more file of the anonymous package, bound to `bundle`.
const dnsLikeName = '=~"^(([a-z0-9][-a-z0-9_.]*)?[a-z0-9])?$" & strings.MinRunes(1) & strings.MaxRunes(63)';
const BUNDLE_SCHEMA_FILE_NAME = 'timoni-fleet.bundle-schema.cue';
const BUNDLE_SCHEMA = `import "strings"

#Bundle: {
	apiVersion: string & =~"^v1alpha1$"
	name:       string & ${dnsLikeName}
	instances: [string & ${dnsLikeName}]: {
		module: close({
			url:     string & =~"^(oci|file)://.*$"
			version: *"latest" | string
			digest?: string
		})
		namespace: string & ${dnsLikeName}
		values: {...}
	}
}

bundle: #Bundle
`;
/**
 * Some CUE errors (an incomplete value, say) carry no position in the user's files, and
 * the field's position in the unified value is the schema's. The same files loaded
 * without the schema say where the user wrote the field.
 */
function locateInUserFiles(engine, input, diagnostics, userFiles) {
    if (diagnostics.every((d) => !d.path || d.positions.some((p) => userFiles.has(p.file))))
        return diagnostics;
    const withoutSchema = loadSourcePackage(engine, { ...sourcePackageInput(input), extraFiles: {} });
    try {
        return diagnostics.map((diagnostic) => {
            if (!diagnostic.path || diagnostic.positions.some((p) => userFiles.has(p.file)))
                return diagnostic;
            const field = withoutSchema.lookup(diagnostic.path);
            try {
                const position = field.exists() ? field.position() : undefined;
                return position && userFiles.has(position.file) ? { ...diagnostic, positions: [position, ...diagnostic.positions] } : diagnostic;
            }
            finally {
                field.free();
            }
        });
    }
    finally {
        withoutSchema.free();
    }
}
function sourcePackageInput(input) {
    return {
        workspace: 'bundle',
        files: input.files,
        moduleFiles: input.moduleFiles,
        values: input.values,
        extraFiles: { [BUNDLE_SCHEMA_FILE_NAME]: BUNDLE_SCHEMA },
        context: input.context,
    };
}
function stringAt(value, path) {
    const field = value.lookup(path);
    try {
        if (!field.exists())
            return undefined;
        const exported = field.toJSON();
        return typeof exported === 'string' ? exported : undefined;
    }
    finally {
        field.free();
    }
}
function readInstance(instances, label, name, locateValues) {
    const instance = instances.lookup(label);
    try {
        const urlValue = instance.lookup('module.url');
        const declaringFile = urlValue.position()?.file;
        urlValue.free();
        const url = resolveFileModuleUrl(stringAt(instance, 'module.url') ?? '', declaringFile);
        const digest = stringAt(instance, 'module.digest');
        const valuesField = instance.lookup('values');
        const values = (valuesField.exists() ? valuesField.toJSON() : {});
        const valuesCue = valuesField.exists() ? valuesField.toCUE() : '{}';
        valuesField.free();
        return {
            name,
            namespace: stringAt(instance, 'namespace') ?? '',
            module: { url, version: stringAt(instance, 'module.version') ?? 'latest', ...(digest ? { digest } : {}) },
            values,
            valuesCue,
            locateValues,
        };
    }
    finally {
        instance.free();
    }
}
/** The bundle evaluated again, to say where the values at `valuesPath` were written. */
function valueLocator(engine, input, valuesPath, userFiles) {
    const root = loadSourcePackage(engine, sourcePackageInput(input));
    return {
        positionOf(path) {
            const value = root.lookup(`${valuesPath}.${path}`);
            try {
                const position = value.exists() ? value.position() : undefined;
                return position && userFiles.has(position.file) ? position : undefined;
            }
            finally {
                value.free();
            }
        },
        free: () => root.free(),
    };
}
/** The package loaded, its errors in plain words where the bundle schema speaks. */
function loadBundle(engine, input) {
    try {
        return loadSourcePackage(engine, sourcePackageInput(input));
    }
    catch (error) {
        if (!(error instanceof CueFilesError))
            throw error;
        throw new CueFilesError(error.summary, error.diagnostics.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)));
    }
}
function evaluateBundle(engine, input) {
    const root = loadBundle(engine, input);
    const userFiles = new Set(input.files.map((f) => f.path));
    try {
        const diagnostics = root.validate({ concrete: true });
        if (diagnostics.length > 0) {
            const located = locateInUserFiles(engine, input, diagnostics, userFiles);
            throw new CueFilesError(`bundle is not valid for ${input.context}`, located.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)), userFiles);
        }
        const bundleValue = root.lookup('bundle');
        try {
            if (!bundleValue.exists()) {
                throw new CueFilesError(`no "bundle" field in ${input.files.map((f) => f.path).join(', ')}`, []);
            }
            const value = bundleValue.toJSON();
            const instancesValue = bundleValue.lookup('instances');
            try {
                const instances = instancesValue.exists()
                    ? instancesValue.fields().map((field) => readInstance(instancesValue, field.label, field.name, () => valueLocator(engine, input, `bundle.instances.${field.label}.values`, userFiles)))
                    : [];
                if (instances.length === 0)
                    throw new CueFilesError(`no instances found in bundle (${input.context})`, []);
                return {
                    bundle: { apiVersion: String(value.apiVersion), name: String(value.name), instances },
                    value,
                    cueText: bundleValue.toCUE(),
                };
            }
            finally {
                instancesValue.free();
            }
        }
        finally {
            bundleValue.free();
        }
    }
    finally {
        root.free();
    }
}
/**
 * The bundle's errors that do not wait for a cluster's values: it loads, and what it
 * declares conflicts with nothing, the schema included (concreteness is not asked for:
 * a runtime value not given yet is no error here). Undefined when none is found.
 */
function checkBundle(engine, input) {
    const paths = input.files.map((f) => f.path).join(', ');
    const summary = `the bundle is not valid (${paths}), whatever the cluster`;
    const userFiles = new Set(input.files.map((f) => f.path));
    let root;
    try {
        root = loadSourcePackage(engine, sourcePackageInput(input));
    }
    catch (error) {
        if (error instanceof CueFilesError)
            return new CueFilesError(summary, error.diagnostics.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)), userFiles);
        throw error;
    }
    try {
        const diagnostics = root.validate({ concrete: false });
        if (diagnostics.length === 0)
            return undefined;
        const located = locateInUserFiles(engine, input, diagnostics, userFiles);
        return new CueFilesError(summary, located.map((d) => inPlainWords(d, BUNDLE_SCHEMA_FILE_NAME)), userFiles);
    }
    finally {
        root.free();
    }
}

;// CONCATENATED MODULE: ./src/bundle/clusters.ts






function clusters_matches(wanted, actual) {
    if (wanted === undefined || wanted === '' || wanted === '*')
        return true;
    return wanted.toLowerCase() === actual.toLowerCase();
}
class NoClusterMatchesError extends Error {
    constructor(runtime, selector) {
        const asked = [
            selector.cluster && selector.cluster !== '*' ? `cluster ${(0,display_text/* quote */.h)(selector.cluster)}` : '',
            selector.group && selector.group !== '*' ? `group ${(0,display_text/* quote */.h)(selector.group)}` : '',
        ]
            .filter(Boolean)
            .join(' and ');
        const known = runtime.clusters.map((c) => `${c.name} (group ${c.group})`).join(', ');
        super(`no cluster of runtime "${runtime.name}" matches ${asked || 'the selection'}; clusters: ${known || 'none'}`);
        this.name = 'NoClusterMatchesError';
    }
}
/** The selected clusters in runtime order; throws NoClusterMatchesError when none match. */
function selectClusters(runtime, selector) {
    const selected = runtime.clusters.filter((cluster) => clusters_matches(selector.cluster, cluster.name) && clusters_matches(selector.group, cluster.group));
    if (selected.length === 0)
        throw new NoClusterMatchesError(runtime, selector);
    return selected;
}
class ClusterEvaluationError extends Error {
    cluster;
    constructor(cluster, cause) {
        const message = cause instanceof Error ? cause.message : String(cause);
        // Each fact once: a message that already names the cluster is not prefixed with it again.
        super(namesCluster(message, cluster.name) ? message : `cluster ${cluster.name}: ${message}`, { cause });
        this.cluster = cluster;
        this.name = 'ClusterEvaluationError';
    }
}
function namesCluster(message, name) {
    const at = message.indexOf(`cluster ${name}`);
    const after = message.charAt(at + `cluster ${name}`.length);
    return at >= 0 && !/[\w.-]/.test(after);
}
/** Names of the runtime values the bundle's attributes ask for. */
function attributeNames(engine, files) {
    const names = new Set();
    for (const file of files) {
        if (file.format !== 'cue')
            continue;
        for (const attribute of engine.listRuntimeAttributes(file.path, file.content))
            names.add(attribute.name);
    }
    return names;
}
/** Whether CUE found a value it could not make concrete (what a runtime attribute left without a value gives). */
function incompleteValues(error) {
    return error.diagnostics.some((d) => /non-concrete value|incomplete value/.test(d.message));
}
/**
 * The bundle's error said in the user's terms when it reads runtime values that nothing
 * gave it: `@timoni(runtime:...)` fields left as types (`string`) are what CUE's
 * `non-concrete value string in operand to ==` is about.
 */
function withMissingRuntimeValues(error, runtime, missing) {
    if (!(error instanceof CueFilesError) || missing.length === 0)
        return error;
    const names = missing.join(', ');
    const why = runtime.name === DEFAULT_RUNTIME_NAME
        ? "no runtime was given (-r runtime.cue, or the action's runtime input)"
        : runtime.isDefault
            ? `runtime ${(0,display_text/* quote */.h)(runtime.name)} declares no clusters and nothing else gives them`
            : 'neither the runtime (its clusters and value queries) nor the environment (--runtime-env, --runtime-from-env) gives them';
    return new CueFilesError(`the bundle reads runtime values (${names}) but ${why}; ${error.summary}`, error.diagnostics);
}
/** Evaluates the bundle for one cluster of the runtime. */
async function evaluateForCluster(engine, options, cluster) {
    try {
        const queried = await readQueryValues(engine, options.runtime, cluster, options.readObject, options.secretQueryRefusal);
        const values = mergeRuntimeValues(cluster, options.environment, queried);
        let evaluated;
        try {
            evaluated = evaluateBundle(engine, {
                files: options.bundleFiles,
                moduleFiles: options.moduleFiles,
                values: plainValues(values),
                context: `cluster ${cluster.name}`,
            });
        }
        catch (error) {
            // The files loaded far enough to be evaluated, so their attributes can be listed.
            const missing = error instanceof CueFilesError && incompleteValues(error) ? [...attributeNames(engine, options.bundleFiles)].filter((name) => !values.has(name)) : [];
            throw withMissingRuntimeValues(error, options.runtime, missing);
        }
        // Only values that reach the bundle are secrets worth masking: with --runtime-from-env
        // every environment variable is offered, but only those named by an attribute are used.
        const used = attributeNames(engine, options.bundleFiles);
        const secretEntries = [...values].filter(([name, v]) => v.secret && used.has(name));
        return {
            cluster,
            ...evaluated,
            secretValueNames: secretEntries.map(([name]) => name),
            secretValues: secretEntries.map(([, v]) => v.value).filter((value) => value !== ''),
            clusterSecretValues: secretEntries.filter(([, v]) => v.source === 'query').map(([, v]) => v.value).filter((value) => value !== ''),
        };
    }
    catch (error) {
        throw new ClusterEvaluationError(cluster, error);
    }
}
/** Evaluates the bundle for every selected cluster, in runtime order. */
async function evaluateForClusters(engine, options) {
    const results = [];
    for (const cluster of selectClusters(options.runtime, options.selector))
        results.push(await evaluateForCluster(engine, options, cluster));
    return results;
}
/**
 * The bundle's errors that no cluster can change, found once before any cluster is
 * reached: the files loaded with the values known without a cluster (the environment's)
 * and checked as far as they can be without the others (CUE reports what is wrong; what is
 * only incomplete waits for each cluster's values). A syntax error, a misspelled field,
 * a value of the wrong type for the schema: the same for every cluster. Defaults of
 * runtime attributes stand in for the values a cluster gives; so that a default can never
 * fail a bundle whose clusters all give a value, the error is confirmed on the first
 * selected cluster when its values need no cluster to be read (no runtime value queries).
 * Undefined when the bundle may be fine.
 */
async function bundleErrorWithoutCluster(engine, options) {
    const error = checkBundle(engine, {
        files: options.bundleFiles,
        moduleFiles: options.moduleFiles,
        values: plainValues(mergeRuntimeValues({ name: DEFAULT_RUNTIME_NAME, group: '', kubeContext: '' }, options.environment, [])),
        context: 'the bundle',
    });
    if (!error || options.runtime.queries.length > 0)
        return error;
    const [first] = selectClusters(options.runtime, options.selector);
    if (!first)
        return error;
    try {
        await evaluateForCluster(engine, { ...options, readObject: () => Promise.reject(new Error('no cluster is read before the bundle is checked')) }, first);
        return undefined;
    }
    catch {
        return error;
    }
}

;// CONCATENATED MODULE: ./src/bundle/index.ts
// The bundle layer: bundle and runtime files, runtime values, per-cluster evaluation.







// EXTERNAL MODULE: ./src/action/runner.ts
var runner = __nccwpck_require__(5242);
;// CONCATENATED MODULE: ./src/action/annotations.ts
// Errors become annotations: each CUE diagnostic on its file and line (the user's file
// first), other errors as one plain error annotation.



function hasDiagnostics(error) {
    return typeof error === 'object' && error !== null && Array.isArray(error.diagnostics) && error.diagnostics.length > 0;
}
function diagnosticsOf(error) {
    if (error instanceof CueFilesError || error instanceof CueError)
        return error.diagnostics;
    // Other errors that carry CUE diagnostics (a module build, say).
    if (hasDiagnostics(error))
        return error.diagnostics;
    if (error instanceof Error && error.cause !== undefined && error.cause !== error)
        return diagnosticsOf(error.cause);
    return [];
}
function errorAnnotations(error, title) {
    const diagnostics = diagnosticsOf(error);
    if (diagnostics.length === 0) {
        const message = error instanceof Error ? error.message : String(error);
        return (0,runner/* formatAnnotation */.tn)({ level: 'error', message, ...(title ? { title } : {}) });
    }
    return diagnostics
        .map((diagnostic) => {
        const position = diagnostic.positions[0];
        return (0,runner/* formatAnnotation */.tn)({
            level: 'error',
            title: [title, diagnostic.path ? `CUE error at ${diagnostic.path}` : 'CUE error'].filter(Boolean).join(': '),
            message: diagnostic.message,
            ...(position ? { file: position.file, line: position.line, column: position.column } : {}),
        });
    })
        .join('');
}

;// CONCATENATED MODULE: ./src/cli/arguments.ts
// A small command-line parser for timoni-fleet's flags, named and shaped as `timoni bundle`
// names them: repeatable list flags (`-f a.cue -f b.cue` or `-f a.cue,b.cue`), strings,
// and booleans that also take `=false`. Nothing is ignored: a word that is no flag's value
// is an error (no command takes positional arguments), `--wait false` is refused with the
// spelling that works (`--wait=false`), and an unknown flag names the nearest known one.

class UsageError extends Error {
    constructor(message) {
        super(message);
        this.name = 'UsageError';
    }
}
function parseBoolean(flag, text) {
    if (text === 'true' || text === '1')
        return true;
    if (text === 'false' || text === '0')
        return false;
    throw new UsageError(`--${flag} takes true or false, not ${(0,display_text/* quote */.h)(text)}`);
}
function parseArguments(argv, specs, context = { command: '' }) {
    const byName = new Map(specs.map((spec) => [spec.name, spec]));
    const byShort = new Map(specs.filter((s) => s.short).map((spec) => [spec.short, spec]));
    const parsed = { lists: new Map(), strings: new Map(), booleans: new Map() };
    for (const spec of specs) {
        if (spec.kind === 'boolean')
            parsed.booleans.set(spec.name, spec.default === 'true');
        else if (spec.kind === 'string' && spec.default !== undefined)
            parsed.strings.set(spec.name, spec.default);
    }
    for (let index = 0; index < argv.length; index += 1) {
        const argument = argv[index];
        if (argument === '--') {
            const rest = argv.slice(index + 1);
            if (rest.length > 0)
                throw unexpectedArgument(rest[0], context);
            break;
        }
        let spec;
        let inlineValue;
        if (argument.startsWith('--')) {
            const [name = '', value] = splitOnce(argument.slice(2));
            spec = byName.get(name);
            inlineValue = value;
            if (!spec)
                throw unknownFlag(`--${name}`, specs, context);
        }
        else if (argument.startsWith('-') && argument.length > 1) {
            const [name = '', value] = splitOnce(argument.slice(1));
            spec = byShort.get(name);
            inlineValue = value;
            if (!spec)
                throw unknownFlag(`-${name}`, specs, context);
        }
        else {
            throw unexpectedArgument(argument, context);
        }
        if (spec.kind === 'boolean') {
            const next = argv[index + 1];
            if (inlineValue === undefined && next !== undefined && BOOLEAN_WORDS.has(next)) {
                throw new UsageError(`--${spec.name} takes its value after "=": write --${spec.name}=${next} (a separate ${(0,display_text/* quote */.h)(next)} is not read as its value)`);
            }
            parsed.booleans.set(spec.name, inlineValue === undefined ? true : parseBoolean(spec.name, inlineValue));
            continue;
        }
        let value = inlineValue;
        if (value === undefined) {
            const next = argv[index + 1];
            if (next === undefined)
                throw new UsageError(`--${spec.name} needs a value`);
            value = next;
            index += 1;
        }
        if (spec.kind === 'list') {
            const list = parsed.lists.get(spec.name) ?? [];
            list.push(...value.split(',').map((item) => item.trim()).filter((item) => item !== ''));
            parsed.lists.set(spec.name, list);
        }
        else {
            if (spec.choices && !spec.choices.includes(value)) {
                throw new UsageError(`--${spec.name} must be one of ${spec.choices.join(', ')}, not ${(0,display_text/* quote */.h)(value)}`);
            }
            parsed.strings.set(spec.name, value);
        }
    }
    return parsed;
}
/** Words that, after a boolean flag, were meant as its value. */
const BOOLEAN_WORDS = new Set(['true', 'false', 'True', 'False', 'TRUE', 'FALSE']);
const helpHint = (context) => `Run \`timoni-fleet${context.command ? ` ${context.command}` : ''} --help\` for the flags.`;
function unexpectedArgument(argument, context) {
    return new UsageError(`unexpected argument ${(0,display_text/* quote */.h)(argument)}: ${context.command || 'this command'} takes flags only (bundle files come with -f, runtime files with -r). ${helpHint(context)}`);
}
/** An unknown flag: the nearest known one when one is near, the commands that take it when another does. */
function unknownFlag(written, specs, context) {
    const name = written.replace(/^-+/, '');
    const elsewhere = context.otherCommandsFlags?.get(name);
    if (elsewhere && elsewhere.length > 0) {
        return new UsageError(`unknown flag ${written}: ${context.command} does not take it (${elsewhere.join(', ')} ${elsewhere.length === 1 ? 'does' : 'do'}). ${helpHint(context)}`);
    }
    const nearest = nearestFlag(name, specs);
    return new UsageError(`unknown flag ${written}${nearest ? `: did you mean --${nearest}?` : '.'} ${helpHint(context)}`);
}
/** The flag whose name is nearest to `name`, if near enough to be a typo of it. */
function nearestFlag(name, specs) {
    return nearestName(name, specs.map((spec) => spec.name));
}
/** The name of `names` nearest to `name`: the only one it starts, else one a typo away (edit distance up to a third of its letters, at least one). */
function nearestName(name, names) {
    const prefixed = names.filter((candidate) => name.length >= 3 && candidate.startsWith(name));
    if (prefixed.length === 1)
        return prefixed[0];
    let best;
    for (const candidate of names) {
        const distance = editDistance(name, candidate);
        if (!best || distance < best.distance)
            best = { name: candidate, distance };
    }
    return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}
/** Levenshtein distance, with a swap of two neighbouring letters counted as one edit. */
function editDistance(a, b) {
    const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i += 1) {
        for (let j = 1; j <= b.length; j += 1) {
            const row = rows[i];
            const above = rows[i - 1];
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            row[j] = Math.min(above[j] + 1, row[j - 1] + 1, above[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
                row[j] = Math.min(row[j], rows[i - 2][j - 2] + 1);
        }
    }
    return rows[a.length][b.length];
}
function splitOnce(text) {
    const at = text.indexOf('=');
    return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
function formatFlagHelp(specs) {
    const rows = specs.map((spec) => {
        const value = spec.kind === 'boolean' ? '' : ` ${spec.choices ? spec.choices.join('|') : 'value'}`;
        const names = `${spec.short ? `-${spec.short}, ` : '    '}--${spec.name}${value}`;
        const extra = spec.default !== undefined && spec.default !== '' ? ` (default ${spec.default})` : '';
        return { names, text: `${spec.description}${extra}` };
    });
    const width = Math.max(30, ...rows.map((row) => row.names.length + 1));
    return rows.map((row) => `  ${row.names.padEnd(width)} ${row.text}`).join('\n');
}

// EXTERNAL MODULE: ./src/cancellation.ts
var cancellation = __nccwpck_require__(4632);
;// CONCATENATED MODULE: ./src/changeset.ts
// The ChangeSet: one JSON document that `timoni-fleet diff|apply -o json` print, that the
// action sets as its `changes` output, and that the reports are rendered from.
// Clusters are in runtime order, instances in bundle order, objects in apply order.
const READINESS_STATUSES = (/* unused pure expression or super */ null && (['Current', 'InProgress', 'Failed', 'Terminating', 'NotFound', 'Unknown']));
/** The error step of a cluster whose work a cancellation (SIGINT, SIGTERM) stopped. */
const CANCELLED_STEP = 'cancelled';
/** True for a cluster stopped by the run's cancellation (status `failed`, step `cancelled`). */
function isCancelled(cluster) {
    return cluster.status === 'failed' && cluster.error?.step === CANCELLED_STEP;
}
/** The version of this document's format; a reader refuses a ChangeSet of a newer format. */
const CHANGESET_FORMAT = 1;
/** True when the action changes the cluster (or would): not unchanged, skipped or failed. */
function isChangingAction(action) {
    return action !== 'unchanged' && action !== 'skipped' && action !== 'failed';
}
/** True when any cluster has an object that changes (a failed object is a failure, not a change). */
function hasChanges(changeSet) {
    return changeSet.clusters.some((cluster) => cluster.instances.some((instance) => instance.changes.some((change) => isChangingAction(change.action))));
}

;// CONCATENATED MODULE: ./src/fleet/outcome.ts
// How one cluster's work is told: its entry of the ChangeSet (status, the error with the
// step it failed in, instances with their module and object changes), and its log lines in
// Timoni's style (`b:apps > c:staging-1 > i:podinfo > Deployment/apps/podinfo configured`;
// the cluster part is left out for the default cluster).

/** A failure tagged with the step of the cluster's work it happened in. */
class ClusterStepError extends Error {
    step;
    instance;
    object;
    constructor(step, cause, instance, object) {
        super(cause instanceof Error ? cause.message : String(cause), { cause });
        this.step = step;
        this.instance = instance;
        this.object = object;
        this.name = 'ClusterStepError';
    }
}
function clusterEntry(cluster, status, instances, error, startedAt) {
    return {
        name: cluster.name,
        group: cluster.group,
        kubeContext: cluster.kubeContext,
        status,
        error,
        instances,
        startedAt: new Date(startedAt).toISOString(),
        durationMs: Date.now() - startedAt,
    };
}
function clusterError(error, fallbackStep) {
    if (error instanceof ClusterStepError) {
        return { step: error.step, message: error.message, ...(error.instance ? { instance: error.instance } : {}), ...(error.object ? { object: error.object } : {}) };
    }
    return { step: fallbackStep, message: error instanceof Error ? error.message : String(error) };
}
function skippedEntry(cluster) {
    return { name: cluster.name, group: cluster.group, kubeContext: cluster.kubeContext, status: 'skipped', error: null, instances: [] };
}
function logPrefix(bundle, cluster, instance) {
    const parts = [`b:${bundle}`];
    if (cluster && cluster !== DEFAULT_RUNTIME_NAME)
        parts.push(`c:${cluster}`);
    if (instance)
        parts.push(`i:${instance}`);
    return parts.join(' > ');
}
function changeLine(bundle, cluster, instance, change) {
    const object = [change.kind, change.namespace, change.name].filter(Boolean).join('/');
    return `${logPrefix(bundle, cluster, instance)} > ${object} ${change.action}`;
}

;// CONCATENATED MODULE: ./src/kube/object.ts
// Kubernetes objects as plain JSON values: the engine never passes them through typed
// models, so fields unknown to this code survive untouched. Helpers to name objects.
/** Timoni's per-object action annotations (api/v1alpha1/actions.go). */
const annotations = {
    prune: 'action.timoni.sh/prune',
    force: 'action.timoni.sh/force',
    oneOff: 'action.timoni.sh/one-off',
    wait: 'action.timoni.sh/wait',
};
const enabledValue = 'enabled';
const disabledValue = 'disabled';
/** `apps/v1` -> `apps`; `v1` -> `` (the core group). */
function groupOf(apiVersion) {
    const slash = apiVersion.indexOf('/');
    return slash < 0 ? '' : apiVersion.slice(0, slash);
}
/** `apps/v1` -> `v1`; `v1` -> `v1`. */
function versionOf(apiVersion) {
    const slash = apiVersion.indexOf('/');
    return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}
function refOf(object) {
    return {
        apiVersion: object.apiVersion,
        kind: object.kind,
        namespace: object.metadata.namespace ?? '',
        name: object.metadata.name,
    };
}
/** `Kind/namespace/name` or `Kind/name`, as Timoni and fluxcd ssa print objects. */
function formatRef(ref) {
    const r = 'metadata' in ref ? refOf(ref) : ref;
    return r.namespace ? `${r.kind}/${r.namespace}/${r.name}` : `${r.kind}/${r.name}`;
}
/**
 * True when one of the key/value pairs is set, as a label or an annotation, with the
 * same value compared case-insensitively (fluxcd ssa `AnyInMetadata`).
 */
function anyInMetadata(object, selector) {
    if (!object)
        return false;
    const labels = object.metadata.labels ?? {};
    const notes = object.metadata.annotations ?? {};
    return Object.entries(selector).some(([key, value]) => {
        const label = labels[key];
        const note = notes[key];
        return (!!label && label.toLowerCase() === value.toLowerCase()) || (!!note && note.toLowerCase() === value.toLowerCase());
    });
}
/** A deep copy of a JSON value. */
function cloneJson(value) {
    return structuredClone(value);
}
function isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/** Checks the shape every object needs before it is sent anywhere. */
function assertKubeObject(value, where) {
    if (!isRecord(value))
        throw new Error(`${where}: not a Kubernetes object`);
    const { apiVersion, kind, metadata } = value;
    if (typeof apiVersion !== 'string' || !apiVersion)
        throw new Error(`${where}: object has no apiVersion`);
    if (typeof kind !== 'string' || !kind)
        throw new Error(`${where}: object has no kind`);
    if (!isRecord(metadata) || typeof metadata.name !== 'string' || !metadata.name) {
        throw new Error(`${where}: ${kind} has no metadata.name`);
    }
}

;// CONCATENATED MODULE: ./src/kube/apply-order.ts
// The order in which objects are applied, as Timoni does it (fluxcd ssa sort.go and
// ApplyAllStaged, with Timoni's extra stage for RBAC Roles): pure functions.

/** Kinds applied first, in this order (fluxcd ssa `ReconcileOrder.First`). */
const firstKinds = [
    'CustomResourceDefinition',
    'Namespace',
    'ClusterRole',
    'ClusterClass',
    'RuntimeClass',
    'PriorityClass',
    'StorageClass',
    'VolumeSnapshotClass',
    'IngressClass',
    'GatewayClass',
    'ClusterRoleBinding',
    'ResourceQuota',
    'ServiceAccount',
    'Role',
    'RoleBinding',
    'ConfigMap',
    'Secret',
    'Service',
    'LimitRange',
    'Deployment',
    'StatefulSet',
    'CronJob',
    'PodDisruptionBudget',
];
/** Kinds applied last, in this order (fluxcd ssa `ReconcileOrder.Last`). */
const lastKinds = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];
const kindIndex = new Map([
    ...firstKinds.map((kind, i) => [kind, i - firstKinds.length]),
    ...lastKinds.map((kind, i) => [kind, i + 1]),
]);
/** Any kind not listed sorts between the first and the last kinds. */
function indexOfKind(kind) {
    return kindIndex.get(kind) ?? 0;
}
function keyOf(object) {
    if ('metadata' in object) {
        const o = object;
        return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name };
    }
    return object;
}
const compareStrings = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
/** Compares two objects by kind order, then group, kind, namespace and name. */
function compareApplyOrder(a, b) {
    const x = keyOf(a);
    const y = keyOf(b);
    const gx = groupOf(x.apiVersion);
    const gy = groupOf(y.apiVersion);
    if (gx !== gy || x.kind !== y.kind) {
        const ix = indexOfKind(x.kind);
        const iy = indexOfKind(y.kind);
        if (ix !== iy)
            return ix - iy;
        if (gx !== gy)
            return compareStrings(gx, gy);
        return compareStrings(x.kind, y.kind);
    }
    const nx = x.namespace ?? '';
    const ny = y.namespace ?? '';
    if (nx !== ny)
        return compareStrings(nx, ny);
    return compareStrings(x.name, y.name);
}
/** A sorted copy of the objects, in apply order. */
function sortForApply(objects) {
    return [...objects].sort(compareApplyOrder);
}
/** A sorted copy in the order objects are deleted (the reverse of apply order). */
function sortForDelete(objects) {
    return sortForApply(objects).reverse();
}
function isClusterDefinition(o) {
    const kind = o.kind.toLowerCase();
    const group = groupOf(o.apiVersion);
    return ((kind === 'customresourcedefinition' && o.apiVersion.startsWith('apiextensions.k8s.io/')) ||
        (kind === 'namespace' && o.apiVersion === 'v1') ||
        (kind === 'clusterrole' && group === 'rbac.authorization.k8s.io'));
}
function isClassDefinition(o) {
    return o.kind.endsWith('Class');
}
function isRole(o) {
    return o.kind === 'Role' && groupOf(o.apiVersion) === 'rbac.authorization.k8s.io';
}
/**
 * Splits one apply set into Timoni's stages: CRDs, Namespaces and ClusterRoles (wait),
 * `*Class` kinds (wait), RBAC Roles, then everything else; each stage sorted. Empty
 * stages are left out.
 */
function applyStages(objects) {
    const stages = [
        { name: 'definitions', waitAfter: true, objects: [] },
        { name: 'classes', waitAfter: true, objects: [] },
        { name: 'roles', waitAfter: false, objects: [] },
        { name: 'resources', waitAfter: false, objects: [] },
    ];
    for (const object of objects) {
        const key = keyOf(object);
        const index = isClusterDefinition(key) ? 0 : isClassDefinition(key) ? 1 : isRole(key) ? 2 : 3;
        stages[index].objects.push(object);
    }
    return stages
        .filter((stage) => stage.objects.length > 0)
        .map((stage) => ({ ...stage, objects: sortForApply(stage.objects) }));
}

;// CONCATENATED MODULE: ./src/concurrency.ts
// Bounded concurrency, the one pool of the project: work runs over many items with at most
// `limit` in flight, and results come back in the items' order whatever order they settle in.
// Used for the objects of one instance (dry-runs), the namespaces of a cluster (listings) and
// the clusters of a plan.
/** Settles `work` for every item, at most `limit` at once; answers the outcomes in item order. */
async function settleBounded(items, limit, work) {
    const results = new Array(items.length);
    let next = 0;
    const worker = async () => {
        while (next < items.length) {
            const index = next++;
            try {
                results[index] = { status: 'fulfilled', value: await work(items[index], index) };
            }
            catch (reason) {
                results[index] = { status: 'rejected', reason };
            }
        }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
    return results;
}
/**
 * Runs `work` for every item, at most `limit` at once, and answers the results in item
 * order. When some fail, the others still run to their end (nothing is left running in the
 * background) and the first failure in item order is thrown.
 */
async function mapBounded(items, limit, work) {
    const outcomes = await settleBounded(items, limit, work);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed)
        throw failed.reason;
    return outcomes.map((outcome) => outcome.value);
}

;// CONCATENATED MODULE: ./node_modules/diff/libesm/diff/base.js
class Diff {
    diff(oldStr, newStr, 
    // Type below is not accurate/complete - see above for full possibilities - but it compiles
    options = {}) {
        let callback;
        if (typeof options === 'function') {
            callback = options;
            options = {};
        }
        else if ('callback' in options) {
            callback = options.callback;
        }
        // Allow subclasses to massage the input prior to running
        const oldString = this.castInput(oldStr, options);
        const newString = this.castInput(newStr, options);
        const oldTokens = this.removeEmpty(this.tokenize(oldString, options));
        const newTokens = this.removeEmpty(this.tokenize(newString, options));
        return this.diffWithOptionsObj(oldTokens, newTokens, options, callback);
    }
    diffWithOptionsObj(oldTokens, newTokens, options, callback) {
        var _a;
        const done = (value) => {
            value = this.postProcess(value, options);
            if (callback) {
                setTimeout(function () { callback(value); }, 0);
                return undefined;
            }
            else {
                return value;
            }
        };
        const newLen = newTokens.length, oldLen = oldTokens.length;
        let editLength = 1;
        let maxEditLength = newLen + oldLen;
        if (options.maxEditLength != null) {
            maxEditLength = Math.min(maxEditLength, options.maxEditLength);
        }
        const maxExecutionTime = (_a = options.timeout) !== null && _a !== void 0 ? _a : Infinity;
        const abortAfterTimestamp = Date.now() + maxExecutionTime;
        const bestPath = [{ oldPos: -1, lastComponent: undefined }];
        // Seed editLength = 0, i.e. the content starts with the same values
        let newPos = this.extractCommon(bestPath[0], newTokens, oldTokens, 0, options);
        if (bestPath[0].oldPos + 1 >= oldLen && newPos + 1 >= newLen) {
            // Identity per the equality and tokenizer
            return done(this.buildValues(bestPath[0].lastComponent, newTokens, oldTokens));
        }
        // Once we hit the right edge of the edit graph on some diagonal k, we can
        // definitely reach the end of the edit graph in no more than k edits, so
        // there's no point in considering any moves to diagonal k+1 any more (from
        // which we're guaranteed to need at least k+1 more edits).
        // Similarly, once we've reached the bottom of the edit graph, there's no
        // point considering moves to lower diagonals.
        // We record this fact by setting minDiagonalToConsider and
        // maxDiagonalToConsider to some finite value once we've hit the edge of
        // the edit graph.
        // This optimization is not faithful to the original algorithm presented in
        // Myers's paper, which instead pointlessly extends D-paths off the end of
        // the edit graph - see page 7 of Myers's paper which notes this point
        // explicitly and illustrates it with a diagram. This has major performance
        // implications for some common scenarios. For instance, to compute a diff
        // where the new text simply appends d characters on the end of the
        // original text of length n, the true Myers algorithm will take O(n+d^2)
        // time while this optimization needs only O(n+d) time.
        let minDiagonalToConsider = -Infinity, maxDiagonalToConsider = Infinity;
        // Main worker method. checks all permutations of a given edit length for acceptance.
        const execEditLength = () => {
            for (let diagonalPath = Math.max(minDiagonalToConsider, -editLength); diagonalPath <= Math.min(maxDiagonalToConsider, editLength); diagonalPath += 2) {
                let basePath;
                const removePath = bestPath[diagonalPath - 1], addPath = bestPath[diagonalPath + 1];
                if (removePath) {
                    // No one else is going to attempt to use this value, clear it
                    // @ts-expect-error - perf optimisation. This type-violating value will never be read.
                    bestPath[diagonalPath - 1] = undefined;
                }
                let canAdd = false;
                if (addPath) {
                    // what newPos will be after we do an insertion:
                    const addPathNewPos = addPath.oldPos - diagonalPath;
                    canAdd = addPath && 0 <= addPathNewPos && addPathNewPos < newLen;
                }
                const canRemove = removePath && removePath.oldPos + 1 < oldLen;
                if (!canAdd && !canRemove) {
                    // If this path is a terminal then prune
                    // @ts-expect-error - perf optimisation. This type-violating value will never be read.
                    bestPath[diagonalPath] = undefined;
                    continue;
                }
                // Select the diagonal that we want to branch from. We select the prior
                // path whose position in the old string is the farthest from the origin
                // and does not pass the bounds of the diff graph
                if (!canRemove || (canAdd && removePath.oldPos < addPath.oldPos)) {
                    basePath = this.addToPath(addPath, true, false, 0, options);
                }
                else {
                    basePath = this.addToPath(removePath, false, true, 1, options);
                }
                newPos = this.extractCommon(basePath, newTokens, oldTokens, diagonalPath, options);
                if (basePath.oldPos + 1 >= oldLen && newPos + 1 >= newLen) {
                    // If we have hit the end of both strings, then we are done
                    return done(this.buildValues(basePath.lastComponent, newTokens, oldTokens)) || true;
                }
                else {
                    bestPath[diagonalPath] = basePath;
                    if (basePath.oldPos + 1 >= oldLen) {
                        maxDiagonalToConsider = Math.min(maxDiagonalToConsider, diagonalPath - 1);
                    }
                    if (newPos + 1 >= newLen) {
                        minDiagonalToConsider = Math.max(minDiagonalToConsider, diagonalPath + 1);
                    }
                }
            }
            editLength++;
        };
        // Performs the length of edit iteration. Is a bit fugly as this has to support the
        // sync and async mode which is never fun. Loops over execEditLength until a value
        // is produced, or until the edit length exceeds options.maxEditLength (if given),
        // in which case it will return undefined.
        if (callback) {
            (function exec() {
                setTimeout(function () {
                    if (editLength > maxEditLength || Date.now() > abortAfterTimestamp) {
                        return callback(undefined);
                    }
                    if (!execEditLength()) {
                        exec();
                    }
                }, 0);
            }());
        }
        else {
            while (editLength <= maxEditLength && Date.now() <= abortAfterTimestamp) {
                const ret = execEditLength();
                if (ret) {
                    return ret;
                }
            }
        }
    }
    addToPath(path, added, removed, oldPosInc, options) {
        const last = path.lastComponent;
        if (last && !options.oneChangePerToken && last.added === added && last.removed === removed) {
            return {
                oldPos: path.oldPos + oldPosInc,
                lastComponent: { count: last.count + 1, added: added, removed: removed, previousComponent: last.previousComponent }
            };
        }
        else {
            return {
                oldPos: path.oldPos + oldPosInc,
                lastComponent: { count: 1, added: added, removed: removed, previousComponent: last }
            };
        }
    }
    extractCommon(basePath, newTokens, oldTokens, diagonalPath, options) {
        const newLen = newTokens.length, oldLen = oldTokens.length;
        let oldPos = basePath.oldPos, newPos = oldPos - diagonalPath, commonCount = 0;
        while (newPos + 1 < newLen && oldPos + 1 < oldLen && this.equals(oldTokens[oldPos + 1], newTokens[newPos + 1], options)) {
            newPos++;
            oldPos++;
            commonCount++;
            if (options.oneChangePerToken) {
                basePath.lastComponent = { count: 1, previousComponent: basePath.lastComponent, added: false, removed: false };
            }
        }
        if (commonCount && !options.oneChangePerToken) {
            basePath.lastComponent = { count: commonCount, previousComponent: basePath.lastComponent, added: false, removed: false };
        }
        basePath.oldPos = oldPos;
        return newPos;
    }
    equals(left, right, options) {
        if (options.comparator) {
            return options.comparator(left, right);
        }
        else {
            return left === right
                || (!!options.ignoreCase && left.toLowerCase() === right.toLowerCase());
        }
    }
    removeEmpty(array) {
        const ret = [];
        for (let i = 0; i < array.length; i++) {
            if (array[i]) {
                ret.push(array[i]);
            }
        }
        return ret;
    }
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    castInput(value, options) {
        return value;
    }
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    tokenize(value, options) {
        return Array.from(value);
    }
    join(chars) {
        // Assumes ValueT is string, which is the case for most subclasses.
        // When it's false, e.g. in diffArrays, this method needs to be overridden (e.g. with a no-op)
        // Yes, the casts are verbose and ugly, because this pattern - of having the base class SORT OF
        // assume tokens and values are strings, but not completely - is weird and janky.
        return chars.join('');
    }
    postProcess(changeObjects, 
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    options) {
        return changeObjects;
    }
    get useLongestToken() {
        return false;
    }
    buildValues(lastComponent, newTokens, oldTokens) {
        // First we convert our linked list of components in reverse order to an
        // array in the right order:
        const components = [];
        let nextComponent;
        while (lastComponent) {
            components.push(lastComponent);
            nextComponent = lastComponent.previousComponent;
            delete lastComponent.previousComponent;
            lastComponent = nextComponent;
        }
        components.reverse();
        const componentLen = components.length;
        let componentPos = 0, newPos = 0, oldPos = 0;
        for (; componentPos < componentLen; componentPos++) {
            const component = components[componentPos];
            if (!component.removed) {
                if (!component.added && this.useLongestToken) {
                    let value = newTokens.slice(newPos, newPos + component.count);
                    value = value.map(function (value, i) {
                        const oldValue = oldTokens[oldPos + i];
                        return oldValue.length > value.length ? oldValue : value;
                    });
                    component.value = this.join(value);
                }
                else {
                    component.value = this.join(newTokens.slice(newPos, newPos + component.count));
                }
                newPos += component.count;
                // Common case
                if (!component.added) {
                    oldPos += component.count;
                }
            }
            else {
                component.value = this.join(oldTokens.slice(oldPos, oldPos + component.count));
                oldPos += component.count;
            }
        }
        return components;
    }
}

;// CONCATENATED MODULE: ./node_modules/diff/libesm/diff/line.js


class LineDiff extends Diff {
    constructor() {
        super(...arguments);
        this.tokenize = tokenize;
    }
    equals(left, right, options) {
        // If we're ignoring whitespace, we need to normalise lines by stripping
        // whitespace before checking equality. (This has an annoying interaction
        // with newlineIsToken that requires special handling: if newlines get their
        // own token, then we DON'T want to trim the *newline* tokens down to empty
        // strings, since this would cause us to treat whitespace-only line content
        // as equal to a separator between lines, which would be weird and
        // inconsistent with the documented behavior of the options.)
        if (options.ignoreWhitespace) {
            if (!options.newlineIsToken || !left.includes('\n')) {
                left = left.trim();
            }
            if (!options.newlineIsToken || !right.includes('\n')) {
                right = right.trim();
            }
        }
        else if (options.ignoreNewlineAtEof && !options.newlineIsToken) {
            if (left.endsWith('\n')) {
                left = left.slice(0, -1);
            }
            if (right.endsWith('\n')) {
                right = right.slice(0, -1);
            }
        }
        return super.equals(left, right, options);
    }
}
const lineDiff = new LineDiff();
function diffLines(oldStr, newStr, options) {
    return lineDiff.diff(oldStr, newStr, options);
}
function diffTrimmedLines(oldStr, newStr, options) {
    options = generateOptions(options, { ignoreWhitespace: true });
    return lineDiff.diff(oldStr, newStr, options);
}
// Exported standalone so it can be used from jsonDiff too.
function tokenize(value, options) {
    if (options.stripTrailingCr) {
        // remove one \r before \n to match GNU diff's --strip-trailing-cr behavior
        value = value.replace(/\r\n/g, '\n');
    }
    const retLines = [], linesAndNewlines = value.split(/(\n|\r\n)/);
    // Ignore the final empty token that occurs if the string ends with a new line
    if (!linesAndNewlines[linesAndNewlines.length - 1]) {
        linesAndNewlines.pop();
    }
    // Merge the content and line separators into single tokens
    for (let i = 0; i < linesAndNewlines.length; i++) {
        const line = linesAndNewlines[i];
        if (i % 2 && !options.newlineIsToken) {
            retLines[retLines.length - 1] += line;
        }
        else {
            retLines.push(line);
        }
    }
    return retLines;
}

;// CONCATENATED MODULE: ./node_modules/diff/libesm/patch/create.js

/**
 * Returns true if the filename contains characters that require C-style
 * quoting (as used by Git and GNU diffutils in diff output).
 */
function needsQuoting(s) {
    for (let i = 0; i < s.length; i++) {
        if (s[i] < '\x20' || s[i] > '\x7e' || s[i] === '"' || s[i] === '\\') {
            return true;
        }
    }
    return false;
}
/**
 * C-style quotes a filename, encoding special characters as escape sequences
 * and non-ASCII bytes as octal escapes. This is the inverse of
 * `parseQuotedFileName` in parse.ts.
 *
 * Non-ASCII bytes are encoded as UTF-8 before being emitted as octal escapes.
 * This matches the behaviour of both Git and GNU diffutils, which always emit
 * UTF-8 octal escapes regardless of the underlying filesystem encoding (e.g.
 * Git for Windows converts from NTFS's UTF-16 to UTF-8 internally).
 *
 * If the filename doesn't need quoting, returns it as-is.
 */
function quoteFileNameIfNeeded(s) {
    if (!needsQuoting(s)) {
        return s;
    }
    let result = '"';
    const bytes = new TextEncoder().encode(s);
    let i = 0;
    while (i < bytes.length) {
        const b = bytes[i];
        // See https://en.wikipedia.org/wiki/Escape_sequences_in_C#Escape_sequences
        if (b === 0x07) {
            result += '\\a';
        }
        else if (b === 0x08) {
            result += '\\b';
        }
        else if (b === 0x09) {
            result += '\\t';
        }
        else if (b === 0x0a) {
            result += '\\n';
        }
        else if (b === 0x0b) {
            result += '\\v';
        }
        else if (b === 0x0c) {
            result += '\\f';
        }
        else if (b === 0x0d) {
            result += '\\r';
        }
        else if (b === 0x22) {
            result += '\\"';
        }
        else if (b === 0x5c) {
            result += '\\\\';
        }
        else if (b >= 0x20 && b <= 0x7e) {
            // Just a printable ASCII character that is neither a double quote nor a
            // backslash; no need to escape it.
            result += String.fromCharCode(b);
        }
        else {
            // Either part of a non-ASCII character or a control character without a
            // special escape sequence; needs escaping as a 3-digit octal escape
            result += '\\' + b.toString(8).padStart(3, '0');
        }
        i++;
    }
    result += '"';
    return result;
}
const INCLUDE_HEADERS = {
    includeIndex: true,
    includeUnderline: true,
    includeFileHeaders: true
};
const FILE_HEADERS_ONLY = {
    includeIndex: false,
    includeUnderline: false,
    includeFileHeaders: true
};
const OMIT_HEADERS = {
    includeIndex: false,
    includeUnderline: false,
    includeFileHeaders: false
};
function structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options) {
    let optionsObj;
    if (!options) {
        optionsObj = {};
    }
    else if (typeof options === 'function') {
        optionsObj = { callback: options };
    }
    else {
        optionsObj = options;
    }
    if (typeof optionsObj.context === 'undefined') {
        optionsObj.context = 4;
    }
    // We copy this into its own variable to placate TypeScript, which thinks
    // optionsObj.context might be undefined in the callbacks below.
    const context = optionsObj.context;
    // @ts-expect-error (runtime check for something that is correctly a static type error)
    if (optionsObj.newlineIsToken) {
        throw new Error('newlineIsToken may not be used with patch-generation functions, only with diffing functions');
    }
    if (!optionsObj.callback) {
        return diffLinesResultToPatch(diffLines(oldStr, newStr, optionsObj));
    }
    else {
        const { callback } = optionsObj;
        diffLines(oldStr, newStr, Object.assign(Object.assign({}, optionsObj), { callback: (diff) => {
                const patch = diffLinesResultToPatch(diff);
                // TypeScript is unhappy without the cast because it does not understand that `patch` may
                // be undefined here only if `callback` is StructuredPatchCallbackAbortable:
                callback(patch);
            } }));
    }
    function diffLinesResultToPatch(diff) {
        // STEP 1: Build up the patch with no "\ No newline at end of file" lines and with the arrays
        //         of lines containing trailing newline characters. We'll tidy up later...
        if (!diff) {
            return;
        }
        diff.push({ value: '', lines: [] }); // Append an empty value to make cleanup easier
        function contextLines(lines) {
            return lines.map(function (entry) { return ' ' + entry; });
        }
        const hunks = [];
        let oldRangeStart = 0, newRangeStart = 0, curRange = [], oldLine = 1, newLine = 1;
        for (let i = 0; i < diff.length; i++) {
            const current = diff[i], lines = current.lines || splitLines(current.value);
            current.lines = lines;
            if (current.added || current.removed) {
                // If we have previous context, start with that
                if (!oldRangeStart) {
                    const prev = diff[i - 1];
                    oldRangeStart = oldLine;
                    newRangeStart = newLine;
                    if (prev) {
                        curRange = context > 0 ? contextLines(prev.lines.slice(-context)) : [];
                        oldRangeStart -= curRange.length;
                        newRangeStart -= curRange.length;
                    }
                }
                // Output our changes
                for (const line of lines) {
                    curRange.push((current.added ? '+' : '-') + line);
                }
                // Track the updated file position
                if (current.added) {
                    newLine += lines.length;
                }
                else {
                    oldLine += lines.length;
                }
            }
            else {
                // Identical context lines. Track line changes
                if (oldRangeStart) {
                    // Close out any changes that have been output (or join overlapping)
                    if (lines.length <= context * 2 && i < diff.length - 2) {
                        // Overlapping
                        for (const line of contextLines(lines)) {
                            curRange.push(line);
                        }
                    }
                    else {
                        // end the range and output
                        const contextSize = Math.min(lines.length, context);
                        for (const line of contextLines(lines.slice(0, contextSize))) {
                            curRange.push(line);
                        }
                        const hunk = {
                            oldStart: oldRangeStart,
                            oldLines: (oldLine - oldRangeStart + contextSize),
                            newStart: newRangeStart,
                            newLines: (newLine - newRangeStart + contextSize),
                            lines: curRange
                        };
                        hunks.push(hunk);
                        oldRangeStart = 0;
                        newRangeStart = 0;
                        curRange = [];
                    }
                }
                oldLine += lines.length;
                newLine += lines.length;
            }
        }
        // Step 2: eliminate the trailing `\n` from each line of each hunk, and, where needed, add
        //         "\ No newline at end of file".
        for (const hunk of hunks) {
            for (let i = 0; i < hunk.lines.length; i++) {
                if (hunk.lines[i].endsWith('\n')) {
                    hunk.lines[i] = hunk.lines[i].slice(0, -1);
                }
                else {
                    hunk.lines.splice(i + 1, 0, '\\ No newline at end of file');
                    i++; // Skip the line we just added, then continue iterating
                }
            }
        }
        return {
            oldFileName: oldFileName, newFileName: newFileName,
            oldHeader: oldHeader, newHeader: newHeader,
            hunks: hunks
        };
    }
}
/**
 * creates a unified diff patch.
 *
 * @param patch either a single structured patch object (as returned by `structuredPatch`) or an
 *   array of them (as returned by `parsePatch`).
 * @param headerOptions behaves the same as the `headerOptions` option of `createTwoFilesPatch`.
 *   Ignored for patches where `isGit` is `true`.
 *
 * When a patch has `isGit: true`, `formatPatch` output is changed to more closely match Git's
 * output: it emits a `diff --git` header, emits Git extended headers as appropriate based on
 * properties like `isRename`, `isCreate`, `newMode`, etc, and will omit `---`/`+++` file
 * headers for patches with no hunks (e.g. renames without content changes).
 */
function formatPatch(patch, headerOptions) {
    var _a, _b, _c, _d, _e, _f;
    if (!headerOptions) {
        headerOptions = INCLUDE_HEADERS;
    }
    if (Array.isArray(patch)) {
        if (patch.length > 1 && !headerOptions.includeFileHeaders && !patch.every(p => p.isGit)) {
            throw new Error('Cannot omit file headers on a multi-file patch. '
                + '(The result would be unparseable; how would a tool trying to apply '
                + 'the patch know which changes are to which file?)');
        }
        return patch.map(p => formatPatch(p, headerOptions)).join('\n');
    }
    const ret = [];
    // Git patches have a fixed header format (diff --git, extended headers,
    // and ---/+++ when hunks are present), so headerOptions is ignored.
    if (patch.isGit) {
        headerOptions = INCLUDE_HEADERS;
        // Emit Git-style diff --git header and extended headers.
        // Git never puts /dev/null in the "diff --git" line; for file
        // creations/deletions it uses the real filename on both sides.
        if (!patch.oldFileName) {
            throw new Error('oldFileName must be specified for Git patches');
        }
        if (!patch.newFileName) {
            throw new Error('newFileName must be specified for Git patches');
        }
        let gitOldName = patch.oldFileName;
        let gitNewName = patch.newFileName;
        if (patch.isCreate && gitOldName === '/dev/null') {
            gitOldName = gitNewName.replace(/^b\//, 'a/');
        }
        else if (patch.isDelete && gitNewName === '/dev/null') {
            gitNewName = gitOldName.replace(/^a\//, 'b/');
        }
        ret.push('diff --git ' + quoteFileNameIfNeeded(gitOldName) + ' ' + quoteFileNameIfNeeded(gitNewName));
        if (patch.isDelete) {
            ret.push('deleted file mode ' + ((_a = patch.oldMode) !== null && _a !== void 0 ? _a : '100644'));
        }
        if (patch.isCreate) {
            ret.push('new file mode ' + ((_b = patch.newMode) !== null && _b !== void 0 ? _b : '100644'));
        }
        if (patch.oldMode && patch.newMode && !patch.isDelete && !patch.isCreate) {
            ret.push('old mode ' + patch.oldMode);
            ret.push('new mode ' + patch.newMode);
        }
        if (patch.isRename) {
            ret.push('rename from ' + quoteFileNameIfNeeded(((_c = patch.oldFileName) !== null && _c !== void 0 ? _c : '').replace(/^a\//, '')));
            ret.push('rename to ' + quoteFileNameIfNeeded(((_d = patch.newFileName) !== null && _d !== void 0 ? _d : '').replace(/^b\//, '')));
        }
        if (patch.isCopy) {
            ret.push('copy from ' + quoteFileNameIfNeeded(((_e = patch.oldFileName) !== null && _e !== void 0 ? _e : '').replace(/^a\//, '')));
            ret.push('copy to ' + quoteFileNameIfNeeded(((_f = patch.newFileName) !== null && _f !== void 0 ? _f : '').replace(/^b\//, '')));
        }
    }
    else {
        if (headerOptions.includeIndex && patch.oldFileName == patch.newFileName && patch.oldFileName !== undefined) {
            ret.push('Index: ' + patch.oldFileName);
        }
        if (headerOptions.includeUnderline) {
            ret.push('===================================================================');
        }
    }
    // Emit --- / +++ file headers. For Git patches with no hunks (e.g.
    // pure renames, mode-only changes), Git omits these, so we do too.
    const hasHunks = patch.hunks.length > 0;
    if (headerOptions.includeFileHeaders && patch.oldFileName !== undefined && patch.newFileName !== undefined
        && (!patch.isGit || hasHunks)) {
        ret.push('--- ' + quoteFileNameIfNeeded(patch.oldFileName) + (patch.oldHeader ? '\t' + patch.oldHeader : ''));
        ret.push('+++ ' + quoteFileNameIfNeeded(patch.newFileName) + (patch.newHeader ? '\t' + patch.newHeader : ''));
    }
    for (let i = 0; i < patch.hunks.length; i++) {
        const hunk = patch.hunks[i];
        // Unified Diff Format quirk: If the chunk size is 0,
        // the first number is one lower than one would expect.
        // https://www.artima.com/weblogs/viewpost.jsp?thread=164293
        const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
        const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
        ret.push('@@ -' + oldStart + ',' + hunk.oldLines
            + ' +' + newStart + ',' + hunk.newLines
            + ' @@');
        for (const line of hunk.lines) {
            ret.push(line);
        }
    }
    return ret.join('\n') + '\n';
}
function createTwoFilesPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options) {
    if (typeof options === 'function') {
        options = { callback: options };
    }
    if (!(options === null || options === void 0 ? void 0 : options.callback)) {
        const patchObj = structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options);
        if (!patchObj) {
            return;
        }
        return formatPatch(patchObj, options === null || options === void 0 ? void 0 : options.headerOptions);
    }
    else {
        const { callback } = options;
        structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, Object.assign(Object.assign({}, options), { callback: patchObj => {
                if (!patchObj) {
                    callback(undefined);
                }
                else {
                    callback(formatPatch(patchObj, options.headerOptions));
                }
            } }));
    }
}
function createPatch(fileName, oldStr, newStr, oldHeader, newHeader, options) {
    return createTwoFilesPatch(fileName, fileName, oldStr, newStr, oldHeader, newHeader, options);
}
/**
 * Split `text` into an array of lines, including the trailing newline character (where present)
 */
function splitLines(text) {
    const hasTrailingNl = text.endsWith('\n');
    const result = text.split('\n').map(line => line + '\n');
    if (hasTrailingNl) {
        result.pop();
    }
    else {
        result.push(result.pop().slice(0, -1));
    }
    return result;
}

// EXTERNAL MODULE: ./node_modules/yaml/dist/index.js
var dist = __nccwpck_require__(8815);
;// CONCATENATED MODULE: ./src/duration.ts
// Durations, both ways: parsed as Go writes them (Timoni's --timeout: `5m`, `90s`, `1h30m`,
// `1m30.5s`, `500ms`; a bare number is seconds) and formatted as people read them (`850 ms`,
// `12.3 s`, `2 min 05 s`), or, for a time limit the user set, in the flag's own notation
// (`5m`, `1m30s`), so that a message echoes `--timeout 5m` as 5m, not as 300000 ms.
const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
function parseDuration(text) {
    const trimmed = text.trim();
    if (trimmed === '')
        return undefined;
    if (/^\d+$/.test(trimmed))
        return Number(trimmed) * 1000;
    const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
    let total = 0;
    let consumed = 0;
    for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
        total += Number(match[1]) * UNITS[match[2]];
        consumed = part.lastIndex;
    }
    return consumed === trimmed.length && consumed > 0 ? total : undefined;
}
function formatDuration(milliseconds) {
    if (!Number.isFinite(milliseconds) || milliseconds < 0)
        return '–';
    if (milliseconds < 1000)
        return `${Math.round(milliseconds)} ms`;
    const seconds = milliseconds / 1000;
    if (seconds < 60)
        return `${seconds.toFixed(1)} s`;
    const whole = Math.round(seconds);
    const minutes = Math.floor(whole / 60);
    if (minutes < 60)
        return `${minutes} min ${String(whole % 60).padStart(2, '0')} s`;
    return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
/** A time limit in the notation `--timeout` takes, as Go writes it without zero parts: `5m`, `1h30m`, `1m30.5s`, `500ms`. */
function formatLimit(milliseconds) {
    if (!Number.isFinite(milliseconds) || milliseconds < 0)
        return '–';
    if (milliseconds < 1000)
        return `${Math.round(milliseconds)}ms`;
    const hours = Math.floor(milliseconds / 3_600_000);
    const minutes = Math.floor((milliseconds % 3_600_000) / 60_000);
    const seconds = Math.round(milliseconds % 60_000) / 1000;
    return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds ? `${seconds}s` : ''}`;
}

;// CONCATENATED MODULE: ./src/kube/errors.ts
// Errors of the Kubernetes engine: each names the cluster and, when there is one, the object.


/** An answer of the API server with an error status (a `Status` object, usually). */
class errors_KubeApiError extends Error {
    cluster;
    status;
    reason;
    statusMessage;
    request;
    object;
    causes;
    name = 'KubeApiError';
    constructor(cluster, status, 
    /** `NotFound`, `Invalid`, `Conflict`, `Forbidden`... (the Status reason). */
    reason, 
    /** The Status message, as the server wrote it. */
    statusMessage, request, object, causes = []) {
        super(status === 401
            ? `cluster ${cluster}: ${request}: the API server rejected the kubeconfig's credentials for this cluster's context (401 Unauthorized)`
            : `cluster ${cluster}: ${object ? `${formatRef(object)}: ` : ''}${request} failed: ${statusMessage || `HTTP ${status}`}${reason ? ` (${reason})` : ''}`);
        this.cluster = cluster;
        this.status = status;
        this.reason = reason;
        this.statusMessage = statusMessage;
        this.request = request;
        this.object = object;
        this.causes = causes;
    }
    get isNotFound() {
        return this.status === 404;
    }
}
const phaseTimeouts = {
    handshake: 'the TLS handshake did not finish',
    sent: 'sent no answer',
    answering: 'did not finish its answer',
};
/**
 * The API server could not be reached, or did not answer in time. An API server that
 * accepted the connection and then said nothing is not "unreachable": the message names
 * the request it did not answer, and how far it got.
 */
class KubeConnectionError extends Error {
    cluster;
    server;
    code;
    name = 'KubeConnectionError';
    request;
    phase;
    constructor(cluster, server, code, detail, context = {}) {
        super(connectionMessage(cluster, server, code, detail, context));
        this.cluster = cluster;
        this.server = server;
        this.code = code;
        this.request = context.request;
        this.phase = context.phase;
    }
    /** True when the server accepted the TCP connection (it runs, but did not answer in time). */
    get accepted() {
        return this.phase !== undefined && this.phase !== 'connecting';
    }
}
function connectionMessage(cluster, server, code, detail, context) {
    const { phase, request, timeoutMs, attempts = 1 } = context;
    const tries = attempts > 1 ? `${attempts} attempts over ${formatDuration(context.spentMs ?? 0)}` : '';
    if (code === 'ETIMEDOUT' && phase && phase !== 'connecting' && request) {
        const object = context.object ? `${formatRef(context.object)}: ` : '';
        const within = timeoutMs !== undefined ? ` within ${formatDuration(timeoutMs)}` : '';
        return `cluster ${cluster}: ${object}${request}: the API server at ${server} accepted the connection but ${phaseTimeouts[phase]}${within} [${code}]${tries ? ` (${tries})` : ''}`;
    }
    const text = code === 'ETIMEDOUT' && timeoutMs !== undefined ? `no connection within ${formatDuration(timeoutMs)} [ETIMEDOUT]` : detail;
    const retried = tries ? ` (${request ? `${request}: ` : ''}${tries})` : '';
    return `cluster ${cluster}: cannot reach the API server at ${server}: ${text}${retried}`;
}
const connectionCodes = {
    ECONNREFUSED: 'connection refused (is the API server running?)',
    ECONNRESET: 'connection reset',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ENOTFOUND: 'host name not found',
    EAI_AGAIN: 'host name lookup failed',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed and not trusted (certificate-authority missing?)',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server certificate is not signed by the configured certificate authority',
    SELF_SIGNED_CERT_IN_CHAIN: 'the server certificate chain is not trusted by the configured certificate authority',
    ERR_TLS_CERT_ALTNAME_INVALID: 'the server certificate does not match the server name (tls-server-name?)',
};
function describeConnectionError(error) {
    const code = error.code ?? 'UNKNOWN';
    return { code, detail: connectionCodes[code] ? `${connectionCodes[code]} [${code}]` : `${error.message} [${code}]` };
}
/** Reads a `Status` body into its message, reason and causes. */
function parseStatus(body) {
    try {
        const status = JSON.parse(body);
        if (isRecord(status)) {
            const details = isRecord(status.details) ? status.details : {};
            const causes = Array.isArray(details.causes) ? details.causes.filter(isRecord).map((cause) => ({
                reason: typeof cause.reason === 'string' ? cause.reason : undefined,
                message: typeof cause.message === 'string' ? cause.message : undefined,
                field: typeof cause.field === 'string' ? cause.field : undefined,
            })) : [];
            return {
                message: typeof status.message === 'string' ? status.message : '',
                reason: typeof status.reason === 'string' ? status.reason : '',
                causes,
            };
        }
    }
    catch {
        // not JSON: fall through
    }
    return { message: body.trim().slice(0, 300), reason: '', causes: [] };
}

;// CONCATENATED MODULE: ./src/kube/immutable.ts
// Changes to immutable fields: recognised in the API server's answer (422 Invalid) and
// reported as a typed error naming the object and the fields.


const immutablePatterns = [
    /field is immutable/i,
    /\bis immutable\b/i,
    /immutable field/i,
    /may not change once set/i,
    /Forbidden: updates to .* are forbidden/i,
];
function mentionsImmutability(text) {
    return !!text && immutablePatterns.some((pattern) => pattern.test(text));
}
/** True when the API server refused a change because it touches an immutable field. */
function isImmutableError(error) {
    return error instanceof errors_KubeApiError && error.status === 422 && (mentionsImmutability(error.statusMessage) || error.causes.some((cause) => mentionsImmutability(cause.message)));
}
/** The fields an immutable error names (`spec.template`, `spec.clusterIPs[0]`...). */
function immutableFields(error) {
    const fields = error.causes.filter((cause) => mentionsImmutability(cause.message) && cause.field).map((cause) => cause.field);
    if (fields.length === 0) {
        // Without causes, the message reads `<Kind> "<name>" is invalid: <field>: <reason>`.
        const match = /is invalid: ([\w.[\]-]+):/.exec(error.statusMessage);
        if (match?.[1])
            fields.push(match[1]);
    }
    return [...new Set(fields)];
}
/**
 * What the server said about each immutable field, without the values it quotes
 * (`Invalid value: {...whole pod template...}: field is immutable` -> `field is immutable`):
 * a value may hold data that must not reach a log.
 */
function immutableReasons(error) {
    const strip = (text) => (text.startsWith('Invalid value:') ? text.slice(text.lastIndexOf(': ') + 2) : text);
    const fromCauses = error.causes
        .filter((cause) => mentionsImmutability(cause.message))
        .map((cause) => `${cause.field ? `${cause.field}: ` : ''}${strip(cause.message ?? '')}`);
    if (fromCauses.length > 0)
        return [...new Set(fromCauses)];
    const match = /is invalid: ([\w.[\]-]+): (.*)$/s.exec(error.statusMessage);
    return match ? [`${match[1]}: ${strip(match[2])}`] : [strip(error.statusMessage)];
}
class ImmutableFieldError extends Error {
    cluster;
    object;
    fields;
    apiError;
    name = 'ImmutableFieldError';
    constructor(cluster, object, fields, apiError) {
        super(`cluster ${cluster}: ${formatRef(object)}: immutable field${fields.length === 1 ? '' : 's'} ${fields.length ? fields.join(', ') : '(unnamed)'} changed; ` +
            `the object must be recreated (apply with force, or annotate it action.timoni.sh/force: enabled); the API server said: ${immutableReasons(apiError).join('; ')}`);
        this.cluster = cluster;
        this.object = object;
        this.fields = fields;
        this.apiError = apiError;
    }
}

;// CONCATENATED MODULE: ./src/kube/managed-fields.ts
// Taking over fields set by kubectl and Helm: their managedFields entries are renamed to
// Timoni's apply manager (merged into it when it exists), and their tracking annotations
// removed, with one JSON patch, before the server-side apply (as Timoni and fluxcd ssa do).
// Pure functions; apply.ts sends the patch.

/** The managers Timoni takes fields over from (internal/runtime/resources.go). */
const takeOverManagers = [
    { name: 'helm', operation: 'Update', exact: true },
    { name: 'helm', operation: 'Apply', exact: true },
    { name: 'kubectl', operation: 'Update', exact: false },
    { name: 'before-first-apply', operation: 'Update', exact: false },
    { name: 'kubectl', operation: 'Apply', exact: false },
];
/** Annotations of kubectl and Helm that Timoni removes when it takes an object over. */
const takeOverAnnotations = [
    'kubectl.kubernetes.io/last-applied-configuration',
    'meta.helm.sh/release-name',
    'meta.helm.sh/release-namespace',
];
function managed_fields_matches(entry, manager) {
    if (entry.operation !== manager.operation || entry.subresource)
        return false;
    const name = entry.manager ?? '';
    return manager.exact ? name === manager.name : name.startsWith(manager.name);
}
/** The union of two FieldsV1 sets: their tries merged key by key. */
function unionFields(a, b) {
    if (!a)
        return b;
    if (!b)
        return a;
    const out = { ...a };
    for (const [key, value] of Object.entries(b)) {
        const existing = out[key];
        out[key] = isRecord(existing) && isRecord(value) ? unionFields(existing, value) : value;
    }
    return out;
}
/**
 * The managedFields with the matching managers' entries given to `owner` as an Apply
 * entry (fluxcd ssa `PatchReplaceFieldsManagers`), or null when nothing matches.
 */
function replaceFieldManagers(entries, owner, managers = takeOverManagers) {
    const previousIndex = entries.findLastIndex((entry) => entry.manager === owner && entry.operation === 'Apply');
    let target = previousIndex >= 0 ? { ...entries[previousIndex] } : undefined;
    const kept = [];
    let edited = false;
    entries.forEach((entry, index) => {
        if (index === previousIndex)
            return;
        if (!managers.some((manager) => managed_fields_matches(entry, manager))) {
            kept.push(entry);
            return;
        }
        edited = true;
        if (!target)
            target = { ...entry, manager: owner, operation: 'Apply' };
        else
            target = { ...target, fieldsV1: unionFields(target.fieldsV1, entry.fieldsV1) };
    });
    if (!edited || !target)
        return null;
    return [...kept, target];
}
const escapePointer = (key) => key.replaceAll('~', '~0').replaceAll('/', '~1');
/** The JSON patch that takes the object over for `owner`; empty when there is nothing to do. */
function takeOwnershipPatch(existing, owner) {
    const patch = [];
    const notes = existing.metadata.annotations ?? {};
    for (const key of takeOverAnnotations) {
        if (key in notes)
            patch.push({ op: 'remove', path: `/metadata/annotations/${escapePointer(key)}` });
    }
    const managedFields = replaceFieldManagers(existing.metadata.managedFields ?? [], owner);
    if (managedFields)
        patch.push({ op: 'replace', path: '/metadata/managedFields', value: managedFields });
    // Refuse to patch a newer version of the object than the one the patch was computed from.
    if (patch.length > 0 && existing.metadata.resourceVersion) {
        patch.unshift({ op: 'test', path: '/metadata/resourceVersion', value: existing.metadata.resourceVersion });
    }
    return patch;
}

;// CONCATENATED MODULE: ./src/kube/normalize.ts
// Normalisation of objects before they are compared or shown: what the API server sets by
// itself (managedFields, uid, resourceVersion...) is not a change anyone made. Pure.

/** Metadata fields the API server sets and that a diff never shows. */
const serverSetMetadata = ['managedFields', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'selfLink'];
/**
 * A copy of the object without managedFields, server-set metadata and (by default)
 * status; empty `labels`/`annotations` maps are dropped so that `{}` equals absent.
 */
function normalizeObject(object, options = {}) {
    const copy = cloneJson(object);
    const metadata = copy.metadata;
    for (const field of serverSetMetadata)
        delete metadata[field];
    for (const field of ['labels', 'annotations']) {
        const value = metadata[field];
        if (isRecord(value) && Object.keys(value).length === 0)
            delete metadata[field];
    }
    if (options.dropStatus ?? true)
        delete copy.status;
    return copy;
}
/** Deep equality of JSON values, map key order ignored. */
function jsonEqual(a, b) {
    if (a === b)
        return true;
    if (Array.isArray(a)) {
        return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
    }
    if (isRecord(a) && isRecord(b)) {
        const keys = Object.keys(a);
        if (keys.length !== Object.keys(b).length)
            return false;
        return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]));
    }
    return false;
}

;// CONCATENATED MODULE: ./src/kube/apply.ts
// Server-side apply of one object, sent exactly as built: PATCH
// application/apply-patch+yaml, field manager `timoni`, forced ownership, `dryRun=All` for
// dry-runs. applyObject adds what Timoni does around it: one-off objects, take-over of
// kubectl/Helm fields, no write when nothing drifted, recreate on immutable changes when forced.






/** Timoni's field manager: what it applies, Timoni owns, and the other way round. */
const fieldManager = 'timoni';
/** The object as it is sent: a cluster-scoped kind loses a stray namespace (as Timoni does). */
async function scoped(cluster, object) {
    const location = await cluster.locate(refOf(object));
    let body = object;
    if (!location.mapping.namespaced && object.metadata.namespace !== undefined) {
        const { namespace: _dropped, ...metadata } = object.metadata;
        body = { ...object, metadata: metadata };
    }
    return { body, path: location.path };
}
/** One server-side apply request; answers the object as the server has (or would have) it. */
async function serverSideApply(cluster, object, options = {}) {
    const { body, path } = await scoped(cluster, object);
    return cluster.client.request({
        method: 'PATCH',
        path,
        query: { fieldManager, force: true, dryRun: options.dryRun ? 'All' : undefined },
        // JSON is YAML: the object goes out byte for byte as built, unknown fields included.
        body: JSON.stringify(body),
        contentType: 'application/apply-patch+yaml',
        object: refOf(object),
    });
}
/**
 * Gives Timoni the fields kubectl and Helm own on the live object, and removes their
 * tracking annotations; true when the object was patched.
 */
async function takeOwnership(cluster, live) {
    const patch = takeOwnershipPatch(live, fieldManager);
    if (patch.length === 0)
        return false;
    const { path } = await cluster.locate(refOf(live));
    await cluster.client.request({
        method: 'PATCH',
        path,
        query: { fieldManager },
        body: patch,
        contentType: 'application/json-patch+json',
        object: refOf(live),
    });
    return true;
}
/**
 * Whether `status` takes part in comparisons: only when the object sets it and its kind has
 * no status subresource (otherwise apply never changes it, and controllers change it anytime).
 */
async function comparesStatus(cluster, desired) {
    if (desired.status === undefined)
        return false;
    const mapping = await cluster.discovery.mappingOrNull(desired.apiVersion, desired.kind);
    return !!mapping && !mapping.statusSubresource;
}
/** Live and dry-run objects differ in something apply owns (metadata or content). */
function hasDrifted(live, dryRun, withStatus = false) {
    return !jsonEqual(normalizeObject(live, { dropStatus: !withStatus }), normalizeObject(dryRun, { dropStatus: !withStatus }));
}
/** True when the object must be recreated after an immutable-field error. */
function mustRecreate(desired, live, force) {
    const selector = { [annotations.force]: enabledValue };
    return !!force || anyInMetadata(desired, selector) || anyInMetadata(live, selector);
}
/** An object marked one-off that already exists is left alone. */
function isOneOffPresent(desired, live) {
    return !!live && anyInMetadata(desired, { [annotations.oneOff]: enabledValue });
}
async function waitGone(cluster, object, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    while ((await cluster.get(refOf(object))) !== null) {
        if (Date.now() > deadline) {
            throw new Error(`cluster ${cluster.name}: ${refOf(object).kind}/${object.metadata.name} was deleted to be recreated but still exists after ${formatLimit(timeoutMs)} (finalizers?)`);
        }
        await new Promise((resolveTimer) => setTimeout(resolveTimer, 250));
    }
}
/**
 * Applies one object as Timoni does: dry-run first; an immutable-field change is an
 * ImmutableFieldError unless forced (then delete, wait, create: `recreated`); kubectl/Helm
 * fields are taken over; nothing is written when nothing drifted (`unchanged`).
 */
async function applyObject(cluster, desired, options = {}) {
    const ref = refOf(desired);
    const live = await cluster.get(ref);
    if (isOneOffPresent(desired, live))
        return { action: 'skipped', object: live };
    let dryRun;
    try {
        dryRun = await serverSideApply(cluster, desired, { dryRun: true });
    }
    catch (error) {
        if (live && isImmutableError(error)) {
            if (!mustRecreate(desired, live, options.force))
                throw new ImmutableFieldError(cluster.name, ref, immutableFields(error), error);
            await cluster.delete(ref);
            await waitGone(cluster, desired, options.deleteTimeoutMs ?? 60_000);
            return { action: 'recreated', object: await serverSideApply(cluster, desired), immutableFields: immutableFields(error) };
        }
        throw error;
    }
    const tookOver = live ? await takeOwnership(cluster, live) : false;
    if (live && !tookOver && !hasDrifted(live, dryRun, await comparesStatus(cluster, desired)))
        return { action: 'unchanged', object: live };
    const applied = await serverSideApply(cluster, desired);
    return { action: live ? 'configured' : 'created', object: applied };
}


;// CONCATENATED MODULE: ./src/kube/discovery.ts

/** No resource of the cluster serves this kind (yet): a missing CRD, or a typo. */
class NoMatchError extends Error {
    cluster;
    apiVersion;
    kind;
    name = 'NoMatchError';
    constructor(cluster, apiVersion, kind) {
        super(`cluster ${cluster}: no resource serves kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)} (is its CRD installed and established?)`);
        this.cluster = cluster;
        this.apiVersion = apiVersion;
        this.kind = kind;
    }
}
const aggregatedAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const key = (apiVersion, kind) => `${apiVersion}/${kind}`;
function list(value) {
    return Array.isArray(value) ? value.filter(isRecord) : [];
}
/** Mappings from an APIGroupDiscoveryList (aggregated discovery). */
function mappingsFromAggregated(document) {
    const out = [];
    for (const group of list(document.items)) {
        const groupName = isRecord(group.metadata) && typeof group.metadata.name === 'string' ? group.metadata.name : '';
        for (const version of list(group.versions)) {
            for (const resource of list(version.resources)) {
                const kind = isRecord(resource.responseKind) ? String(resource.responseKind.kind ?? '') : '';
                if (!kind || typeof resource.resource !== 'string')
                    continue;
                out.push({
                    group: groupName,
                    version: String(version.version),
                    kind,
                    resource: resource.resource,
                    namespaced: resource.scope === 'Namespaced',
                    statusSubresource: list(resource.subresources).some((sub) => sub.subresource === 'status'),
                });
            }
        }
    }
    return out;
}
/** Mappings from one legacy APIResourceList (`/api/v1`, `/apis/apps/v1`...). */
function mappingsFromResourceList(group, version, document) {
    const resources = list(document.resources);
    const names = new Set(resources.map((resource) => String(resource.name)));
    return resources
        .filter((resource) => typeof resource.name === 'string' && !resource.name.includes('/'))
        .map((resource) => ({
        group,
        version,
        kind: String(resource.kind),
        resource: String(resource.name),
        namespaced: resource.namespaced === true,
        statusSubresource: names.has(`${String(resource.name)}/status`),
    }));
}
class Discovery {
    client;
    minRefreshMs;
    aggregated;
    mappings = new Map();
    loaded;
    loadedAt = 0;
    inflight;
    constructor(client, 
    /** A kind not found triggers a new read at most this often. */
    minRefreshMs = 1_000, 
    /** Ask for aggregated discovery (two requests); false reads every group version. */
    aggregated = true) {
        this.client = client;
        this.minRefreshMs = minRefreshMs;
        this.aggregated = aggregated;
    }
    /** Every mapping known after the last read (reads discovery if it was never read). */
    async all() {
        await this.ensureLoaded();
        return [...this.mappings.values()];
    }
    /** The mapping of a kind; reads discovery again once when the kind is unknown. */
    async mapping(apiVersion, kind) {
        await this.ensureLoaded();
        let found = this.mappings.get(key(apiVersion, kind));
        if (!found && Date.now() - this.loadedAt >= this.minRefreshMs) {
            await this.refresh();
            found = this.mappings.get(key(apiVersion, kind));
        }
        if (!found)
            throw new NoMatchError(this.client.name, apiVersion, kind);
        return found;
    }
    /**
     * The mapping of a kind that is about to be served (a CRD just became established:
     * aggregated discovery follows a moment later); reads discovery again until it appears.
     */
    async waitForMapping(apiVersion, kind, timeoutMs = 30_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const found = await this.mappingOrNull(apiVersion, kind);
            if (found)
                return found;
            if (Date.now() > deadline)
                throw new NoMatchError(this.client.name, apiVersion, kind);
            await new Promise((resolveTimer) => setTimeout(resolveTimer, 250));
            await this.refresh();
        }
    }
    /** The mapping, or null when no resource serves the kind. */
    async mappingOrNull(apiVersion, kind) {
        try {
            return await this.mapping(apiVersion, kind);
        }
        catch (error) {
            if (error instanceof NoMatchError)
                return null;
            throw error;
        }
    }
    /** Reads discovery again (call after CRDs became established); concurrent calls share one read. */
    refresh() {
        if (!this.inflight) {
            this.inflight = this.load().finally(() => {
                this.inflight = undefined;
            });
            this.loaded = this.inflight;
        }
        return this.inflight;
    }
    ensureLoaded() {
        this.loaded ??= this.load();
        return this.loaded;
    }
    async load() {
        try {
            const next = new Map();
            for (const mapping of await this.read()) {
                const apiVersion = mapping.group ? `${mapping.group}/${mapping.version}` : mapping.version;
                if (!next.has(key(apiVersion, mapping.kind)))
                    next.set(key(apiVersion, mapping.kind), mapping);
            }
            this.mappings = next;
            this.loadedAt = Date.now();
        }
        catch (error) {
            this.loaded = undefined;
            throw error;
        }
    }
    async read() {
        const accept = this.aggregated ? aggregatedAccept : 'application/json';
        const [core, groups] = await Promise.all([
            this.client.request({ method: 'GET', path: '/api', accept }),
            this.client.request({ method: 'GET', path: '/apis', accept }),
        ]);
        if (core.kind === 'APIGroupDiscoveryList' && groups.kind === 'APIGroupDiscoveryList') {
            return [...mappingsFromAggregated(core), ...mappingsFromAggregated(groups)];
        }
        // Legacy discovery: one request per group version.
        const versions = [];
        for (const version of Array.isArray(core.versions) ? core.versions.map(String) : [])
            versions.push(['', version, `/api/${version}`]);
        for (const group of list(groups.groups)) {
            for (const version of list(group.versions)) {
                versions.push([String(group.name), String(version.version), `/apis/${String(version.groupVersion)}`]);
            }
        }
        const lists = await Promise.all(versions.map(async ([group, version, path]) => {
            const document = await this.client.getOrNull(path);
            return document ? mappingsFromResourceList(group, version, document) : [];
        }));
        return lists.flat();
    }
}

;// CONCATENATED MODULE: ./src/kube/mask.ts
// Secret values never reach a diff or a printed build: masked as Timoni does (fluxcd ssa
// sanitize.go for diffs, internal/mask/mask.go SecretData for `build --mask-secrets`).

const maskDefault = '***';
const maskBefore = '*** (before)';
const maskAfter = '*** (after)';
/** `kubectl apply` copies the whole object, data included, into this annotation. */
const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
const secretFields = ['data', 'stringData'];
/** A v1 Secret, the kind compared without case (fluxcd/pkg ssa utils.IsSecret, which Timoni uses). */
function isSecret(object) {
    return !!object && typeof object.kind === 'string' && object.kind.toLowerCase() === 'secret' && object.apiVersion === 'v1';
}
function maskAnnotations(object) {
    const metadata = object.metadata;
    if (!isRecord(metadata) || !isRecord(metadata.annotations))
        return;
    if (lastAppliedAnnotation in metadata.annotations)
        metadata.annotations[lastAppliedAnnotation] = maskDefault;
}
/**
 * A copy of a Secret with every `data`/`stringData` value as `***` (a field that is not a
 * map as `***` as a whole) and the last-applied annotation masked; other kinds returned as
 * they are.
 */
function maskSecret(object) {
    if (!isSecret(object))
        return object;
    const copy = cloneJson(object);
    for (const field of secretFields) {
        if (!(field in copy))
            continue;
        const value = copy[field];
        copy[field] = isRecord(value) ? Object.fromEntries(Object.keys(value).map((key) => [key, maskDefault])) : maskDefault;
    }
    maskAnnotations(copy);
    return copy;
}
/** The values of `data` and `stringData` together (stringData wins, as the API server does). */
function secretValues(object) {
    const values = {};
    const data = object.data;
    if (isRecord(data))
        for (const [key, value] of Object.entries(data))
            values[key] = String(value);
    const stringData = object.stringData;
    if (isRecord(stringData)) {
        for (const [key, value] of Object.entries(stringData))
            values[key] = Buffer.from(String(value)).toString('base64');
    }
    return values;
}
function maskPair(values, other, changedMask) {
    return Object.fromEntries(Object.keys(values).map((key) => [key, key in other && other[key] !== values[key] ? changedMask : maskDefault]));
}
/**
 * Masks a live and a desired Secret against each other: a key whose value is the same on
 * both sides becomes `***`, a changed key `*** (before)` / `*** (after)`, a key on one side
 * only `***`. `stringData` is folded into `data` first, so that the comparison is fair.
 */
function maskSecretPair(live, desired) {
    if (!isSecret(live) && !isSecret(desired))
        return { live, desired };
    const liveValues = secretValues(live);
    const desiredValues = secretValues(desired);
    const maskedLive = cloneJson(live);
    const maskedDesired = cloneJson(desired);
    delete maskedLive.stringData;
    delete maskedDesired.stringData;
    if (isRecord(live.data) || isRecord(live.stringData))
        maskedLive.data = maskPair(liveValues, desiredValues, maskBefore);
    else if (live.data != null)
        maskedLive.data = maskDefault;
    if (isRecord(desired.data) || isRecord(desired.stringData))
        maskedDesired.data = maskPair(desiredValues, liveValues, maskAfter);
    else if (desired.data != null)
        maskedDesired.data = maskDefault;
    maskAnnotations(maskedLive);
    maskAnnotations(maskedDesired);
    return { live: maskedLive, desired: maskedDesired };
}

;// CONCATENATED MODULE: ./src/kube/diff.ts
// What applying one object would change, without writing anything: GET the live object,
// server-side apply dry-run, compare normalised YAML (Secret data masked). An object the
// API server refuses (an immutable field without force, an invalid value, a forbidden
// kind) is a `failed` change with the server's answer, as Timoni's dry-run diff logs it
// and goes on; a server that cannot be reached or refuses the credentials is thrown.
//
// The text diff is jsdiff's (Myers' algorithm, bounded): `maxEditLength` and a time limit
// keep one huge object (a large CRD, diffed for several clusters at once) from taking
// gigabytes or seconds; past them the change carries `diffTooLarge` and an empty diff.
// A whole object (created or deleted) needs no algorithm: every line is added or removed.









/**
 * Objects rendered as YAML for people to read: keys sorted, long strings never folded,
 * so that the same object always renders to the same lines.
 */
function renderYaml(value) {
    return (0,dist/* stringify */.As)(value, { sortMapEntries: true, lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
}
/**
 * Most insertions plus deletions computed. jsdiff's time grows with their square (and with
 * the texts' length): 2,000 (e.g. 1,000 lines replaced) take about 0.3 s and 35 MB on a
 * 10,000-line object; 8,000 took 4 s.
 */
const MAX_EDIT_LENGTH = 2_000;
/** A backstop for very long texts, where even a short edit script is slow to find. */
const DIFF_TIMEOUT_MS = 2_000;
function diff_splitLines(text) {
    if (text === '')
        return [];
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '')
        lines.pop();
    return lines;
}
function range(start, count) {
    // `diff -u` names the line before the hunk when it is empty, and omits a count of 1.
    const first = count === 0 ? start - 1 : start;
    return count === 1 ? `${first}` : `${first},${count}`;
}
/**
 * The unified diff of `from` and `to` with `context` lines around each change, headed
 * `--- fromName` / `+++ toName`, as `diff -u` prints it; an empty diff when the texts are
 * equal, and an empty diff with `diffTooLarge` when the edit script exceeds the limits.
 * A text without a final newline is read as if it had one.
 */
function unifiedDiff(from, to, options = {}) {
    if (from === to)
        return { diff: '' };
    const header = [`--- ${options.fromName ?? 'live'}`, `+++ ${options.toName ?? 'desired'}`];
    const fromLines = diff_splitLines(from);
    const toLines = diff_splitLines(to);
    // One side empty: one hunk of the other side's lines, without an edit search.
    if (fromLines.length === 0 || toLines.length === 0) {
        const hunk = fromLines.length === 0 ? toLines.map((line) => `+${line}`) : fromLines.map((line) => `-${line}`);
        return { diff: `${[...header, `@@ -${range(1, fromLines.length)} +${range(1, toLines.length)} @@`, ...hunk].join('\n')}\n` };
    }
    const withFinalNewline = (text) => (text.endsWith('\n') ? text : `${text}\n`);
    const patch = structuredPatch('', '', withFinalNewline(from), withFinalNewline(to), undefined, undefined, {
        context: options.context ?? 3,
        maxEditLength: options.maxEditLength ?? MAX_EDIT_LENGTH,
        timeout: options.timeoutMs ?? DIFF_TIMEOUT_MS,
    });
    if (!patch)
        return { diff: '', diffTooLarge: { liveLines: fromLines.length, desiredLines: toLines.length } };
    if (patch.hunks.length === 0)
        return { diff: '' };
    const out = header;
    for (const hunk of patch.hunks) {
        out.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`, ...hunk.lines);
    }
    return { diff: `${out.join('\n')}\n` };
}
/**
 * The whole object (Secret data masked), as a diff from nothing (`created`) or to nothing
 * (`deleted`); never too large, as no edit script is searched.
 */
function wholeObjectDiff(object, side = 'created') {
    const text = renderYaml(maskSecret(normalizeObject(object)));
    return (side === 'created' ? unifiedDiff('', text) : unifiedDiff(text, '')).diff;
}
/** The unified diff of normalised, masked YAML; empty when the objects are the same. */
function objectDiff(live, desired, withStatus = false) {
    const a = normalizeObject(live, { dropStatus: !withStatus });
    const b = normalizeObject(desired, { dropStatus: !withStatus });
    if (jsonEqual(a, b))
        return { diff: '' };
    const masked = isSecret(a) || isSecret(b) ? maskSecretPair(a, b) : { live: a, desired: b };
    return unifiedDiff(renderYaml(masked.live), renderYaml(masked.desired));
}
// The fields that force an object's recreation, as a diff: when an immutable field changes,
// the server refuses the dry-run and gives no merged object to compare with. The live
// object is then shown through the desired object's shape (only the fields the module sets,
// list items by position), so that the diff names what the module changes and not every
// field the server defaulted (clusterIP, strategy, status...).
/**
 * `live` reduced to the paths that `desired` has: maps keep the keys `desired` sets (keys
 * that live lacks stay absent, so they show as added), lists keep their items by position,
 * with the live items past the desired list's end (they would be gone after a recreation);
 * any other value is live's as it is.
 */
function projectOnto(live, desired) {
    if (isRecord(live) && isRecord(desired)) {
        const projected = {};
        for (const key of Object.keys(desired)) {
            if (Object.prototype.hasOwnProperty.call(live, key))
                projected[key] = projectOnto(live[key], desired[key]);
        }
        return projected;
    }
    if (Array.isArray(live) && Array.isArray(desired)) {
        return live.map((item, index) => (index < desired.length ? projectOnto(item, desired[index]) : item));
    }
    return live;
}
/**
 * The unified diff of the desired fields as they are live and as they are desired (Secret
 * data masked); `diffTooLarge` past the diff's limits.
 */
function fieldChangesDiff(live, desired) {
    const a = normalizeObject(live);
    const b = normalizeObject(desired);
    // Secret values are masked (stringData folded into data) before the shape is taken.
    const masked = isSecret(a) || isSecret(b) ? maskSecretPair(a, b) : { live: a, desired: b };
    const projected = projectOnto(masked.live, masked.desired);
    return unifiedDiff(renderYaml(projected), renderYaml(masked.desired));
}
/** The note that ends a recreated object's diff. */
function recreateNote(fields, done) {
    const named = fields.length === 0 ? 'an immutable field changes' : `immutable field${fields.length === 1 ? '' : 's'} ${fields.join(', ')} change${fields.length === 1 ? 's' : ''}`;
    return `# recreated: ${named}; the object ${done ? 'was' : 'is'} deleted and created again\n`;
}
/**
 * The field changes, then the note saying the object is recreated; when the field changes
 * are too large to compute, no text at all (as every too-large diff) and `diffTooLarge`.
 */
function recreateDiff(live, desired, fields, done = false) {
    const changes = fieldChangesDiff(live, desired);
    return changes.diffTooLarge ? changes : { diff: changes.diff + recreateNote(fields, done) };
}
/**
 * True for an error about this one object: the API server answered and refused it
 * (4xx), other than for the credentials (401) or its own load (429).
 */
function isObjectError(error) {
    if (error instanceof ImmutableFieldError)
        return true;
    return error instanceof errors_KubeApiError && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429;
}
async function changeOf(cluster, desired, action, diffOf, error) {
    const mapping = await cluster.discovery.mappingOrNull(desired.apiVersion, desired.kind).catch(() => null);
    const namespace = mapping && !mapping.namespaced ? '' : (desired.metadata.namespace ?? '');
    // A cluster-scoped object is shown without the namespace the server would drop.
    let shown = desired;
    if (!namespace && desired.metadata.namespace !== undefined) {
        const { namespace: _dropped, ...metadata } = desired.metadata;
        shown = { ...desired, metadata: metadata };
    }
    const computed = typeof diffOf === 'function' ? diffOf(shown) : diffOf;
    const { diff, diffTooLarge } = typeof computed === 'string' ? { diff: computed, diffTooLarge: undefined } : computed;
    const change = { kind: desired.kind, apiVersion: desired.apiVersion, namespace, name: desired.metadata.name, action, diff };
    if (error !== undefined)
        change.error = error;
    if (diffTooLarge)
        change.diffTooLarge = diffTooLarge;
    return change;
}
/** The object as a `failed` change: the error's message, and the field changes when it has a live copy. */
function failedChange(cluster, desired, live, error) {
    return changeOf(cluster, desired, 'failed', (shown) => (live ? fieldChangesDiff(live, shown) : ''), error.message);
}
/** The change applying `desired` would make, as an ObjectChange of the ChangeSet. */
async function diffObject(cluster, desired, options = {}) {
    if (options.namespaceExists === false)
        return changeOf(cluster, desired, 'created', wholeObjectDiff);
    let live;
    try {
        live = await cluster.get(refOf(desired));
    }
    catch (error) {
        // A kind whose CRD comes with the same apply is not served yet: it will be created.
        if (error instanceof NoMatchError)
            return changeOf(cluster, desired, 'created', wholeObjectDiff);
        if (isObjectError(error))
            return failedChange(cluster, desired, null, error);
        throw error;
    }
    if (isOneOffPresent(desired, live))
        return changeOf(cluster, desired, 'skipped', '');
    let dryRun;
    try {
        dryRun = await serverSideApply(cluster, desired, { dryRun: true });
    }
    catch (error) {
        let refused = error;
        if (live && isImmutableError(error)) {
            const fields = immutableFields(error);
            if (mustRecreate(desired, live, options.force))
                return changeOf(cluster, desired, 'recreated', (shown) => recreateDiff(live, shown, fields));
            refused = new ImmutableFieldError(cluster.name, refOf(desired), fields, error);
        }
        if (isObjectError(refused))
            return failedChange(cluster, desired, live, refused);
        throw refused;
    }
    if (!live || !dryRun.metadata.resourceVersion)
        return changeOf(cluster, desired, 'created', wholeObjectDiff);
    const diff = objectDiff(live, dryRun, await comparesStatus(cluster, desired));
    return changeOf(cluster, desired, diff.diff || diff.diffTooLarge ? 'configured' : 'unchanged', diff);
}

;// CONCATENATED MODULE: ./src/kube/inventory.ts
// The instance inventory exactly as Timoni v0.33 stores it (internal/runtime/storage.go,
// api/v1alpha1/instance.go, inventory.go): Secret `timoni.<instance>` of type
// `timoni.sh/instance`, `data.instance` = the Instance as Go's encoding/json writes it.
// Pure functions: encode, decode, entry ids.


const instanceKind = 'Instance';
const instanceApiVersion = 'timoni.sh/v1alpha1';
const instanceSecretType = 'timoni.sh/instance';
const instanceSecretPrefix = 'timoni.';
const instanceDataKey = 'instance';
const pendingDataKey = 'pending';
const bundleNameLabel = 'bundle.timoni.sh/name';
const instanceLabels = {
    name: 'app.kubernetes.io/name',
    component: 'app.kubernetes.io/component',
    createdBy: 'app.kubernetes.io/created-by',
};
/** Labels the engine puts on every object of an instance (fluxcd ssa owner labels). */
const ownerLabels = {
    name: 'instance.timoni.sh/name',
    namespace: 'instance.timoni.sh/namespace',
};
const rbacKinds = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
/** cli-utils ObjMetadata.String(): RBAC names have `:` written as `__`. */
function inventoryEntryId(ref) {
    const group = groupOf(ref.apiVersion);
    const name = group === 'rbac.authorization.k8s.io' && rbacKinds.has(ref.kind) ? ref.name.replaceAll(':', '__') : ref.name;
    return `${ref.namespace}_${name}_${group}_${ref.kind}`;
}
/** cli-utils ParseObjMetadata: namespace first, kind and group last, the rest is the name. */
function parseInventoryEntry(entry) {
    const fail = () => new Error(`inventory entry ${JSON.stringify(entry.id)} is not <namespace>_<name>_<group>_<kind>`);
    const first = entry.id.indexOf('_');
    if (first < 0)
        throw fail();
    const namespace = entry.id.slice(0, first);
    let rest = entry.id.slice(first + 1);
    const kindAt = rest.lastIndexOf('_');
    if (kindAt < 0)
        throw fail();
    const kind = rest.slice(kindAt + 1);
    rest = rest.slice(0, kindAt);
    const groupAt = rest.lastIndexOf('_');
    if (groupAt < 0)
        throw fail();
    const group = rest.slice(groupAt + 1);
    const name = rest.slice(0, groupAt).replaceAll('__', ':');
    return { apiVersion: group ? `${group}/${entry.v}` : entry.v, kind, namespace, name };
}
/**
 * Inventory entries of the objects (namespace already cleared for cluster-scoped kinds),
 * in fluxcd ssa sort order as Timoni's InstanceManager.AddObjects writes them.
 */
function inventoryEntries(objects) {
    const refs = objects.map((o) => 'metadata' in o ? { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name } : o);
    return sortForApply(refs).map((ref) => ({ id: inventoryEntryId(ref), v: versionOf(ref.apiVersion) }));
}
/** Go's encoding/json escapes <, >, & and the two JS line separators inside strings. */
function goJson(value) {
    return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
function sortedMap(map) {
    if (!map || Object.keys(map).length === 0)
        return undefined;
    return Object.fromEntries(Object.keys(map).sort().map((key) => [key, map[key]]));
}
/** `data.instance` bytes: the Instance with Go's field order, omitempty rules and escaping. */
function encodeInstance(instance) {
    // Property order follows the Go struct fields; undefined properties are dropped, which is
    // what `omitempty`/`omitzero` do for these fields.
    const document = {
        kind: instanceKind,
        apiVersion: instanceApiVersion,
        metadata: {
            name: instance.name || undefined,
            namespace: instance.namespace || undefined,
            labels: sortedMap(instance.labels),
            annotations: sortedMap(instance.annotations),
        },
        module: {
            name: instance.module.name,
            repository: instance.module.repository,
            version: instance.module.version,
            digest: instance.module.digest,
            annotations: sortedMap(instance.module.annotations),
        },
        values: instance.values,
        lastTransitionTime: instance.lastTransitionTime || undefined,
        inventory: instance.inventory ? { entries: instance.inventory.entries?.length ? instance.inventory.entries.map((e) => ({ id: e.id, v: e.v })) : null } : undefined,
        images: instance.images?.length ? instance.images : undefined,
    };
    return goJson(document);
}
function stringMap(value) {
    if (!isRecord(value))
        return undefined;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}
/** Reads `data.instance` (the decoded JSON text). */
function decodeInstance(text, where) {
    let raw;
    try {
        raw = JSON.parse(text);
    }
    catch {
        throw new Error(`${where}: instance data is not JSON`);
    }
    if (!isRecord(raw))
        throw new Error(`${where}: instance data is not an object`);
    const metadata = isRecord(raw.metadata) ? raw.metadata : {};
    const module = isRecord(raw.module) ? raw.module : {};
    const inventory = isRecord(raw.inventory) ? raw.inventory : undefined;
    return {
        name: String(metadata.name ?? ''),
        namespace: String(metadata.namespace ?? ''),
        labels: stringMap(metadata.labels),
        annotations: stringMap(metadata.annotations),
        module: {
            name: String(module.name ?? ''),
            repository: String(module.repository ?? ''),
            version: String(module.version ?? ''),
            digest: String(module.digest ?? ''),
            annotations: stringMap(module.annotations),
        },
        values: String(raw.values ?? ''),
        lastTransitionTime: typeof raw.lastTransitionTime === 'string' ? raw.lastTransitionTime : undefined,
        inventory: inventory
            ? { entries: Array.isArray(inventory.entries) ? inventory.entries.filter(isRecord).map((e) => ({ id: String(e.id ?? ''), v: String(e.v ?? '') })) : null }
            : undefined,
        images: Array.isArray(raw.images) ? raw.images.map(String) : undefined,
    };
}
function instanceSecretName(instance) {
    return `${instanceSecretPrefix}${instance}`;
}
/** The Secret Timoni writes for an instance (its labels, plus the instance's own labels). */
function instanceSecret(instance) {
    return {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
            name: instanceSecretName(instance.name),
            namespace: instance.namespace,
            labels: {
                [instanceLabels.name]: instance.name,
                [instanceLabels.component]: 'instance',
                [instanceLabels.createdBy]: 'timoni',
                ...instance.labels,
            },
        },
        type: instanceSecretType,
        data: { [instanceDataKey]: Buffer.from(encodeInstance(instance)).toString('base64') },
    };
}
/** Reads an instance Secret; labels, annotations and creation time come from the Secret (as Timoni does). */
function decodeInstanceSecret(secret) {
    const where = `Secret/${secret.metadata.namespace ?? ''}/${secret.metadata.name}`;
    const data = isRecord(secret.data) ? secret.data : {};
    const encoded = data[instanceDataKey];
    if (typeof encoded !== 'string')
        throw new Error(`${where}: instance data not found`);
    const instance = decodeInstance(Buffer.from(encoded, 'base64').toString('utf8'), where);
    instance.labels = secret.metadata.labels ? { ...secret.metadata.labels } : undefined;
    instance.annotations = secret.metadata.annotations ? { ...secret.metadata.annotations } : undefined;
    if (typeof secret.metadata.creationTimestamp === 'string')
        instance.creationTimestamp = secret.metadata.creationTimestamp;
    const pendingData = data[pendingDataKey];
    const pending = typeof pendingData === 'string' ? decodeInstance(Buffer.from(pendingData, 'base64').toString('utf8'), `${where} (pending)`) : undefined;
    return pending ? { instance, pending } : { instance };
}
/** `2026-01-02T03:04:05Z`: Go's time.RFC3339 of a UTC time (no fraction). */
function rfc3339(date) {
    return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

;// CONCATENATED MODULE: ./src/kube/instance.ts


/** A lifecycle step failed: names the cluster, instance, step and object, and what was done before. */
class InstanceStepError extends Error {
    cluster;
    step;
    instance;
    changes;
    cause;
    object;
    name = 'InstanceStepError';
    constructor(cluster, step, 
    /** `namespace/name` of the instance. */
    instance, 
    /** The changes made (or, for a diff, found) before the failure, in order. */
    changes, cause, 
    /** `Kind/namespace/name` of the object concerned, if one is. */
    object) {
        const reason = cause instanceof Error ? cause.message : String(cause);
        // The cause usually names the cluster already; say it once.
        const detail = reason.startsWith(`cluster ${cluster}: `) ? reason.slice(`cluster ${cluster}: `.length) : reason;
        super(`cluster ${cluster}: instance ${instance}: ${step} failed${object && !detail.includes(object) ? ` (${object})` : ''}: ${detail}`);
        this.cluster = cluster;
        this.step = step;
        this.instance = instance;
        this.changes = changes;
        this.cause = cause;
        this.object = object;
    }
}
function instanceId(instance) {
    return `${instance.namespace}/${instance.name}`;
}
/** The objects of every set, in set order, each a copy carrying the instance's owner labels. */
function labelledSets(instance) {
    return instance.sets.map((set) => ({
        name: set.name,
        objects: set.objects.map((object) => {
            const copy = cloneJson(object);
            copy.metadata.labels = { ...copy.metadata.labels, [ownerLabels.name]: instance.name, [ownerLabels.namespace]: instance.namespace };
            return copy;
        }),
    }));
}
/** True when the live object carries the owner labels of this instance (fluxcd ssa delete inclusions). */
function ownedBy(live, instance) {
    const labels = live.metadata.labels ?? {};
    return labels[ownerLabels.name] === instance.name && labels[ownerLabels.namespace] === instance.namespace;
}
const localPrefix = 'file://';
/**
 * The module as Timoni records it: a local module (`file://`) by its path as written, with
 * digest `unknown` (internal/engine/fetcher/local.go); a registry module by its URL.
 */
function moduleReference(module) {
    if (!module.url.startsWith(localPrefix)) {
        const annotations = module.annotations && Object.keys(module.annotations).length > 0 ? { ...module.annotations } : undefined;
        return { name: module.name, repository: module.repository ?? module.url, version: module.version, digest: module.digest, ...(annotations ? { annotations } : {}) };
    }
    return { name: module.name, repository: module.url.slice(localPrefix.length), version: module.version, digest: module.digest || 'unknown' };
}
/** The record Timoni stores for this build: the inventory of every set, the bundle label. */
function instanceRecord(instance, inventoryRefs, withImages) {
    return {
        name: instance.name,
        namespace: instance.namespace,
        labels: { [bundleNameLabel]: instance.bundle },
        module: moduleReference(instance.module),
        values: instance.valuesSource,
        inventory: { entries: inventoryEntries(inventoryRefs) },
        images: withImages ? [...instance.images] : undefined,
    };
}

;// CONCATENATED MODULE: ./src/kube/instance-prune.ts






function refsOf(entries) {
    return (entries ?? []).map(parseInventoryEntry);
}
/**
 * Objects of the stored inventory, and of the pending revision of an unfinished upgrade,
 * that the new inventory lacks; in apply order, without duplicates (Timoni's stale objects).
 */
function staleObjects(stored, next) {
    if (!stored)
        return [];
    const keep = new Set(next.map((entry) => entry.id));
    const seen = new Set();
    const stale = [];
    for (const ref of [...refsOf(stored.instance.inventory?.entries), ...refsOf(stored.pending?.inventory?.entries)]) {
        const id = inventoryEntryId(ref);
        if (keep.has(id) || seen.has(id))
            continue;
        seen.add(id);
        stale.push(ref);
    }
    return sortForApply(stale);
}
/** Every object of the stored record and of its pending revision, in apply order, without duplicates. */
function inventoryObjects(stored) {
    return staleObjects(stored, []);
}
/** The whole live object as removed lines (Secret data masked). */
function deletedDiff(live) {
    return wholeObjectDiff(live, 'deleted');
}
const change = (ref, action, diff) => ({
    kind: ref.kind,
    apiVersion: ref.apiVersion,
    namespace: ref.namespace,
    name: ref.name,
    action,
    diff,
});
/** Why an object of the inventory is left in place, or null when it goes. */
function keepReason(live, owner) {
    if (!ownedBy(live, owner))
        return 'not labelled as an object of this instance';
    if (anyInMetadata(live, { [annotations.prune]: disabledValue }))
        return `annotated ${annotations.prune}: ${disabledValue}`;
    return null;
}
/** Deleting some objects failed; the others were deleted (or skipped) as said in `changes`. */
class DeleteObjectsError extends Error {
    cluster;
    changes;
    failures;
    name = 'DeleteObjectsError';
    constructor(cluster, changes, failures) {
        super(`cluster ${cluster}: deleting ${failures.length} object(s) failed: ${failures.map((f) => f.error.message.replace(`cluster ${cluster}: `, '')).join('; ')}`);
        this.cluster = cluster;
        this.changes = changes;
        this.failures = failures;
    }
    get object() {
        return this.failures[0]?.object;
    }
}
/**
 * Deletes the objects in reverse apply order, background propagation; answers one change
 * per object: `deleted` (also when it was already gone), or `skipped` when its labels or
 * annotations keep it. Every object is tried; failures are thrown together at the end.
 */
async function deleteObjects(cluster, refs, owner, options = {}) {
    const changes = [];
    const failures = [];
    for (const ref of sortForDelete(refs)) {
        try {
            let live;
            try {
                live = await cluster.get(ref);
            }
            catch (error) {
                // Its kind is no longer served (the CRD went first): nothing is left of it.
                if (!(error instanceof NoMatchError))
                    throw error;
                live = null;
            }
            if (!live) {
                changes.push(change(ref, 'deleted', ''));
                continue;
            }
            const reason = keepReason(live, owner);
            if (reason) {
                options.log?.(`${formatRef(ref)} skipped (${reason})`);
                changes.push(change(ref, 'skipped', ''));
                continue;
            }
            if (!options.dryRun)
                await cluster.delete(ref, 'Background');
            options.log?.(`${formatRef(ref)} deleted${options.dryRun ? ' (server dry run)' : ''}`);
            changes.push(change(ref, 'deleted', deletedDiff(live)));
        }
        catch (error) {
            failures.push({ object: formatRef(ref), error: error });
        }
    }
    if (failures.length > 0)
        throw new DeleteObjectsError(cluster.name, changes, failures);
    return changes;
}

;// CONCATENATED MODULE: ./src/kube/inventory-store.ts
// Reading and writing instance Secrets on a cluster, as Timoni's StorageManager does.



const secretRef = (name, namespace) => ({ apiVersion: 'v1', kind: 'Secret', namespace, name: instanceSecretName(name) });
/** The stored instance, or null when there is none. */
async function inventory_store_readInstance(cluster, name, namespace) {
    const secret = await cluster.get(secretRef(name, namespace));
    if (!secret)
        return null;
    try {
        return decodeInstanceSecret(secret);
    }
    catch (error) {
        throw new Error(`cluster ${cluster.name}: invalid instance found in Secret/${namespace}/${instanceSecretName(name)}: ${error.message}`);
    }
}
/** Instances in a namespace ('' = all), optionally of one bundle, oldest first. */
async function listInstances(cluster, namespace, bundle) {
    const selector = { [instanceLabels.component]: 'instance', [instanceLabels.createdBy]: 'timoni' };
    if (bundle)
        selector[bundleNameLabel] = bundle;
    const secrets = await cluster.list('v1', 'Secret', namespace, selector);
    const created = (secret) => String(secret.metadata.creationTimestamp ?? '');
    return secrets
        .sort((a, b) => (created(a) < created(b) ? -1 : created(a) > created(b) ? 1 : 0))
        .map((secret) => {
        try {
            return decodeInstanceSecret(secret);
        }
        catch (error) {
            throw new Error(`cluster ${cluster.name}: invalid instance found in Secret/${secret.metadata.namespace}/${secret.metadata.name}: ${error.message}`);
        }
    });
}
/**
 * Writes the instance Secret (server-side apply, field manager `timoni`), stamping
 * `lastTransitionTime`; answers the record as written.
 */
async function writeInstance(cluster, instance, now = new Date()) {
    const written = { ...instance, lastTransitionTime: rfc3339(now) };
    delete written.creationTimestamp;
    const secret = instanceSecret(written);
    try {
        await serverSideApply(cluster, secret);
    }
    catch (error) {
        // Timoni recreates storage written with another Secret type (type is immutable).
        if (!isImmutableError(error))
            throw error;
        await cluster.delete(secretRef(instance.name, instance.namespace));
        await serverSideApply(cluster, secret);
    }
    return written;
}
/** Removes the instance Secret; false when it was not there. */
function deleteInstance(cluster, name, namespace) {
    return cluster.delete(secretRef(name, namespace));
}
/** True when the namespace exists. */
async function namespaceExists(cluster, name) {
    return (await cluster.get({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name })) !== null;
}
/** Creates the namespace when missing, labelled as Timoni labels the ones it creates. */
async function ensureNamespace(cluster, name) {
    if (await namespaceExists(cluster, name))
        return false;
    await serverSideApply(cluster, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { [instanceLabels.createdBy]: fieldManager } },
    });
    return true;
}

;// CONCATENATED MODULE: ./src/kube/ownership.ts


/** Timoni's message for the conflicts, with its advice. */
function ownershipConflictMessage(conflicts) {
    const each = conflicts.map((c) => c.currentBundle
        ? `instance "${c.instance}" exists and is managed by another bundle "${c.currentBundle}"`
        : `instance "${c.instance}" exists and is not managed by any bundle`);
    return `instance ownership conflict encountered. Conflict: ${each.join('; ')} Apply with "--overwrite-ownership" to gain instance ownership.`;
}
class OwnershipConflictError extends Error {
    cluster;
    bundle;
    conflicts;
    name = 'OwnershipConflictError';
    constructor(cluster, bundle, conflicts) {
        super(`cluster ${cluster}: bundle ${bundle}: ${ownershipConflictMessage(conflicts)}`);
        this.cluster = cluster;
        this.bundle = bundle;
        this.conflicts = conflicts;
    }
}
/** The instances of `bundle` that exist in the cluster and belong to another bundle or to none. */
async function findOwnershipConflicts(cluster, bundle, instances) {
    const conflicts = [];
    for (const instance of instances) {
        const conflict = ownershipConflict(await inventory_store_readInstance(cluster, instance.name, instance.namespace), bundle, instance);
        if (conflict)
            conflicts.push(conflict);
    }
    return conflicts;
}
/** The conflict an instance's stored record (null: none stored) makes for `bundle`, if any. */
function ownershipConflict(stored, bundle, instance) {
    if (!stored)
        return null;
    const owner = stored.instance.labels?.[bundleNameLabel] ?? '';
    return owner === bundle ? null : { instance: instance.name, namespace: instance.namespace, currentBundle: owner };
}
/** Throws an OwnershipConflictError when any instance of the bundle is owned elsewhere. */
async function assertOwnership(cluster, bundle, instances) {
    const conflicts = await findOwnershipConflicts(cluster, bundle, instances);
    if (conflicts.length > 0)
        throw new OwnershipConflictError(cluster.name, bundle, conflicts);
}

;// CONCATENATED MODULE: ./src/kube/instance-diff.ts









/** Diffs the instance; throws an InstanceStepError (`ownership` or `diff`) with the changes found before. */
async function diffInstance(cluster, instance, options = {}) {
    const id = instanceId(instance);
    const changes = [];
    const fail = (step, error, object) => {
        throw new InstanceStepError(cluster.name, step, id, [...changes], error, object);
    };
    // The instance's stored record, read once: for the ownership check, and later for what
    // to prune (a dry-run changes nothing in between). Undefined while not read.
    let stored;
    if (!options.overwriteOwnership) {
        try {
            stored = await inventory_store_readInstance(cluster, instance.name, instance.namespace);
            const conflict = ownershipConflict(stored, instance.bundle, instance);
            if (conflict)
                throw new OwnershipConflictError(cluster.name, instance.bundle, [conflict]);
        }
        catch (error) {
            fail('ownership', error);
        }
    }
    // A stored record lives in the instance's namespace: the namespace exists then.
    let exists = true;
    if (!stored) {
        try {
            exists = await namespaceExists(cluster, instance.namespace);
        }
        catch (error) {
            fail('diff', error, `Namespace/${instance.namespace}`);
        }
    }
    if (!exists) {
        const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: instance.namespace, labels: { 'app.kubernetes.io/created-by': 'timoni' } } };
        changes.push({ kind: 'Namespace', apiVersion: 'v1', namespace: '', name: instance.namespace, action: 'created', diff: wholeObjectDiff(namespace) });
    }
    // Objects in apply order, diffed a few at a time; the first failure (in that order) is reported.
    const sets = labelledSets(instance);
    const ordered = sets.flatMap((set) => applyStages(set.objects).flatMap((stage) => stage.objects));
    const outcomes = await settleBounded(ordered, options.concurrency ?? 4, (object) => diffObject(cluster, object, { namespaceExists: exists, force: options.force }));
    outcomes.forEach((outcome, index) => {
        if (outcome.status === 'rejected')
            fail('diff', outcome.reason, formatRef(ordered[index]));
        else
            changes.push(outcome.value);
    });
    // Without its namespace the instance has no stored record: nothing to prune.
    if (exists && (options.prune ?? true)) {
        try {
            const record = stored === undefined ? await inventory_store_readInstance(cluster, instance.name, instance.namespace) : stored;
            const refs = await Promise.all(sets.flatMap((set) => set.objects).map((object) => cluster.scopedRef(object)));
            const stale = staleObjects(record, inventoryEntries(refs));
            changes.push(...(await deleteObjects(cluster, stale, instance, { dryRun: true })));
        }
        catch (error) {
            const object = error.object;
            fail('diff', error, typeof object === 'string' ? object : undefined);
        }
    }
    return { changes, namespaceExists: exists };
}

;// CONCATENATED MODULE: ./src/module/object-metadata.ts
// Checks that a built object can be applied and tracked: apiVersion, kind and
// metadata.name present; name, namespace, labels and annotations valid under the
// kube-apiserver's ObjectMeta rules (as Timoni checks them before applying). One message
// per violation, so that a module author sees every problem at once. Names and keys are
// quoted with quote(): a name that fails these rules can hold any character, and the
// message is printed in the log and the pull request comment.

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
function dnsSubdomainProblems(value) {
    const problems = [];
    if (value.length > 253)
        problems.push('must be no more than 253 characters');
    if (!DNS_SUBDOMAIN.test(value))
        problems.push(`must match regex '${DNS_SUBDOMAIN.source.slice(1, -1)}'`);
    return problems;
}
function dnsLabelProblems(value) {
    const problems = [];
    if (value.length > 63)
        problems.push('must be no more than 63 characters');
    if (!DNS_LABEL.test(value))
        problems.push(`must match regex '${DNS_LABEL.source.slice(1, -1)}'`);
    return problems;
}
function pathSegmentProblems(value) {
    if (value === '.' || value === '..')
        return [`may not be '${value}'`];
    const problems = [];
    for (const bad of ['/', '%'])
        if (value.includes(bad))
            problems.push(`may not contain '${bad}'`);
    return problems;
}
function qualifiedNameProblems(key) {
    const slash = key.lastIndexOf('/');
    const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
    const name = slash >= 0 ? key.slice(slash + 1) : key;
    const problems = [];
    if (prefix !== undefined) {
        if (prefix === '')
            problems.push('prefix part must be non-empty');
        else
            problems.push(...dnsSubdomainProblems(prefix).map((p) => `prefix part ${p}`));
    }
    if (name === '')
        problems.push('name part must be non-empty');
    else {
        if (name.length > 63)
            problems.push('name part must be no more than 63 characters');
        if (!QUALIFIED_NAME.test(name))
            problems.push(`name part must match regex '${QUALIFIED_NAME.source.slice(1, -1)}'`);
    }
    return problems;
}
function labelValueProblems(value) {
    const problems = [];
    if (value.length > 63)
        problems.push('must be no more than 63 characters');
    if (!LABEL_VALUE.test(value))
        problems.push(`must match regex '${LABEL_VALUE.source.slice(1, -1)}'`);
    return problems;
}
function object_metadata_isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function isRbacObject(apiVersion, kind) {
    return RBAC_KINDS.has(kind) && apiVersion.startsWith('rbac.authorization.k8s.io/');
}
function objectMetadataProblems(object) {
    const metadata = object_metadata_isRecord(object.metadata) ? object.metadata : {};
    const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
    const kind = typeof object.kind === 'string' ? object.kind : '';
    const name = typeof metadata.name === 'string' ? metadata.name : '';
    const missing = [!apiVersion && 'apiVersion', !kind && 'kind', !name && 'metadata.name'].filter(Boolean);
    if (missing.length > 0)
        return [`missing required field(s) ${missing.join(', ')}`];
    const problems = [];
    const nameProblems = isRbacObject(apiVersion, kind) ? pathSegmentProblems(name) : dnsSubdomainProblems(name);
    problems.push(...nameProblems.map((p) => `metadata.name ${(0,display_text/* quote */.h)(name)} ${p}`));
    if (typeof metadata.namespace === 'string' && metadata.namespace !== '') {
        problems.push(...dnsLabelProblems(metadata.namespace).map((p) => `metadata.namespace ${(0,display_text/* quote */.h)(metadata.namespace)} ${p}`));
    }
    if (object_metadata_isRecord(metadata.labels)) {
        for (const key of Object.keys(metadata.labels).sort()) {
            const value = metadata.labels[key];
            if (typeof value !== 'string') {
                problems.push(`metadata.labels[${(0,display_text/* quote */.h)(key)}] must be a string`);
                continue;
            }
            problems.push(...qualifiedNameProblems(key).map((p) => `metadata.labels[${(0,display_text/* quote */.h)(key)}] key ${p}`));
            problems.push(...labelValueProblems(value).map((p) => `metadata.labels[${(0,display_text/* quote */.h)(key)}] value ${p}`));
        }
    }
    if (object_metadata_isRecord(metadata.annotations)) {
        let total = 0;
        for (const key of Object.keys(metadata.annotations).sort()) {
            const value = metadata.annotations[key];
            if (typeof value !== 'string') {
                problems.push(`metadata.annotations[${(0,display_text/* quote */.h)(key)}] must be a string`);
                continue;
            }
            problems.push(...qualifiedNameProblems(key.toLowerCase()).map((p) => `metadata.annotations[${(0,display_text/* quote */.h)(key)}] key ${p}`));
            total += Buffer.byteLength(key) + Buffer.byteLength(value);
        }
        if (total > TOTAL_ANNOTATION_SIZE_LIMIT)
            problems.push(`metadata.annotations total size must be at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`);
    }
    return problems;
}

;// CONCATENATED MODULE: ./src/module/apply-sets.ts
// The objects of one `timoni.apply` set, as Timoni reads them: the set's items decoded as
// Timoni decodes them (bytes fields as text, below), null entries skipped, Kubernetes
// `*List` objects expanded to their items, kustomize configuration objects skipped, and
// every object's metadata checked (all problems reported, each with its CUE path).


function isKubeList(item) {
    return typeof item.kind === 'string' && item.kind.endsWith('List') && Array.isArray(item.items);
}
function isKustomization(item) {
    return typeof item.apiVersion === 'string' && item.apiVersion.startsWith('kustomize.config.k8s.io/');
}
function objectsOfSet(path, items) {
    const objects = [];
    const problems = [];
    items.forEach((item, index) => {
        if (item === null)
            return;
        const at = `${path}[${index}]`;
        if (!apply_sets_isRecord(item)) {
            problems.push(`${at}: not an object`);
            return;
        }
        const expanded = isKubeList(item) ? item.items : [item];
        for (const candidate of expanded) {
            if (!apply_sets_isRecord(candidate)) {
                problems.push(`${at}: a list item is not an object`);
                continue;
            }
            if (isKustomization(candidate))
                continue;
            const found = objectMetadataProblems(candidate);
            if (found.length > 0)
                problems.push(...found.map((problem) => `invalid object at path ${at}: ${problem}`));
            else
                objects.push(candidate);
        }
    });
    return { objects, problems };
}
// The items of one `timoni.apply` set as Timoni decodes them (internal/engine/resourceset.go).
//
// Timoni decodes an item through its JSON encoding, unless the item holds a CUE bytes or
// float value anywhere (needsYAMLDecoding): then it encodes the item with CUE's YAML
// encoder and decodes that with apimachinery's YAML decoder (decodeYAMLObjects), that is
// go-yaml v2 into interface{}, json.Marshal, json.Unmarshal. What that changes:
// - bytes: CUE's YAML encoder writes them as `!!binary <base64>`, go-yaml v2 decodes that
//   tag to the raw bytes as a string, and json.Marshal coerces the string to valid UTF-8.
//   So a bytes field holds its decoded text where the JSON encoding holds base64.
// - floats: an integral float (`1.0`) becomes an integer. JavaScript numbers do not tell
//   1.0 from 1, so the JSON path already gives what Timoni gives.
// - strings, ints, bools, null: unchanged (CUE's encoder quotes every string that YAML
//   would read as another type, YAML 1.1 booleans included).
// So an item equals its JSON export with every bytes field replaced by its decoded text.
// The bytes fields are found in the set's YAML export (the only export that marks them):
// `!!binary` values read with the `yaml` package's binary tag, as Uint8Array. The export
// is made only for a set the engine says holds bytes (`hasBytes`).
/** A JSON object (not an array, not bytes read from YAML). */
function apply_sets_isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
/**
 * `json` with every value that is bytes in `marked` (the same value read from YAML)
 * replaced by Timoni's decoding of it. Returns `json` itself when nothing is bytes.
 */
function replaceBytes(json, marked) {
    if (marked instanceof Uint8Array)
        return goJsonString(marked);
    if (Array.isArray(json) && Array.isArray(marked)) {
        let changed = false;
        const items = json.map((item, index) => {
            const replaced = replaceBytes(item, marked[index]);
            if (replaced !== item)
                changed = true;
            return replaced;
        });
        return changed ? items : json;
    }
    if (apply_sets_isRecord(json) && apply_sets_isRecord(marked)) {
        let result;
        for (const [key, value] of Object.entries(json)) {
            const replaced = replaceBytes(value, marked[key]);
            if (replaced === value)
                continue;
            result ??= { ...json };
            result[key] = replaced;
        }
        return result ?? json;
    }
    return json;
}
/** The engine's YAML export could not be read back (a bug of the engine or of `yaml`, not of the module). */
class ApplySetExportError extends Error {
    path;
    constructor(path, reason) {
        super(`${path}: reading the YAML export of the set failed: ${reason}`);
        this.path = path;
        this.name = 'ApplySetExportError';
    }
}
/** The set's YAML export read with bytes as Uint8Array; `path` names the set in errors. */
function readMarkedYaml(yaml, path) {
    const document = (0,dist/* parseDocument */.Tp)(yaml, { customTags: ['binary'], uniqueKeys: false });
    const problem = document.errors[0];
    if (problem)
        throw new ApplySetExportError(path, problem.message);
    return document.toJS({ maxAliasCount: -1 });
}
/**
 * The set's items (JSON export), bytes fields decoded as Timoni decodes them. Throws
 * CueError when the set does not export, ApplySetExportError when its YAML cannot be read.
 */
function exportApplySet(set, path) {
    const json = set.toJSON();
    // Most sets hold no bytes: their YAML export is not needed (the engine's walk says so).
    if (!set.hasBytes())
        return json;
    return replaceBytes(json, readMarkedYaml(set.toYAML(), path));
}
// Raw bytes as Go's encoding/json writes them as a string: valid UTF-8 is kept, and every
// byte that does not start a valid UTF-8 sequence becomes U+FFFD on its own (json.Marshal
// "coerces to valid UTF-8, replacing invalid bytes with the Unicode replacement rune",
// one per utf8.DecodeRune error of width 1). TextDecoder differs: it replaces a truncated
// sequence (e.g. E2 82 followed by 'A') with one U+FFFD where Go writes two.
const REPLACEMENT = 0xfffd;
/** Bounds of the second byte after a given lead byte, as in Go's utf8 "accept ranges". */
function secondByteRange(lead) {
    if (lead === 0xe0)
        return [0xa0, 0xbf];
    if (lead === 0xed)
        return [0x80, 0x9f];
    if (lead === 0xf0)
        return [0x90, 0xbf];
    if (lead === 0xf4)
        return [0x80, 0x8f];
    return [0x80, 0xbf];
}
/** Length of the sequence a lead byte starts (0: not a valid lead byte). */
function sequenceLength(lead) {
    if (lead < 0x80)
        return 1;
    if (lead >= 0xc2 && lead <= 0xdf)
        return 2;
    if (lead >= 0xe0 && lead <= 0xef)
        return 3;
    if (lead >= 0xf0 && lead <= 0xf4)
        return 4;
    return 0;
}
/** The code point at `bytes[at]` and its length, or undefined when Go would see RuneError of width 1. */
function decodeRune(bytes, at) {
    const lead = bytes[at];
    const size = sequenceLength(lead);
    if (size === 0 || at + size > bytes.length)
        return undefined;
    if (size === 1)
        return { codePoint: lead, size };
    const [low, high] = secondByteRange(lead);
    const second = bytes[at + 1];
    if (second < low || second > high)
        return undefined;
    let codePoint = lead & (0xff >> (size + 1));
    for (let i = 1; i < size; i += 1) {
        const next = bytes[at + i];
        if (i > 1 && (next < 0x80 || next > 0xbf))
            return undefined;
        codePoint = (codePoint << 6) | (next & 0x3f);
    }
    return { codePoint, size };
}
function goJsonString(bytes) {
    const codePoints = [];
    let at = 0;
    while (at < bytes.length) {
        const rune = decodeRune(bytes, at);
        codePoints.push(rune ? rune.codePoint : REPLACEMENT);
        at += rune ? rune.size : 1;
    }
    let text = '';
    for (let i = 0; i < codePoints.length; i += 8192)
        text += String.fromCodePoint(...codePoints.slice(i, i + 8192));
    return text;
}

;// CONCATENATED MODULE: ./src/module/build-error.ts
class InstanceBuildError extends Error {
    instance;
    moduleUrl;
    reason;
    diagnostics;
    constructor(instance, moduleUrl, reason, diagnostics = []) {
        super(`instance ${instance} (module ${moduleUrl}): ${reason}`);
        this.instance = instance;
        this.moduleUrl = moduleUrl;
        this.reason = reason;
        this.diagnostics = diagnostics;
        this.name = 'InstanceBuildError';
    }
}
function comparePositions(a, b) {
    // token.Pos.Compare: absolute file names first, then by name, then by place.
    const absA = a.file.startsWith('/');
    const absB = b.file.startsWith('/');
    if (absA !== absB)
        return absA ? -1 : 1;
    if (a.file !== b.file)
        return a.file < b.file ? -1 : 1;
    return a.line - b.line || a.column - b.column;
}
function comparePaths(a, b) {
    // slices.Compare of the path's selectors.
    const x = a === '' ? [] : a.split('.');
    const y = b === '' ? [] : b.split('.');
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
        if (x[i] !== y[i])
            return (x[i] ?? '') < (y[i] ?? '') ? -1 : 1;
    }
    return x.length - y.length;
}
/** The position an error has of its own (cue/errors Error.Position), if any. */
function ownPosition(diagnostic) {
    return diagnostic.inputPositionsOnly ? undefined : diagnostic.positions[0];
}
/**
 * cue/errors.Print's order (list.sanitize): errors without a position of their own
 * first, then by position, then by CUE path; ties keep their order, then by message.
 */
function sortAsCue(diagnostics) {
    return [...diagnostics].sort((a, b) => {
        const pa = ownPosition(a);
        const pb = ownPosition(b);
        if (!pa !== !pb)
            return pa ? 1 : -1;
        const byPosition = pa && pb ? comparePositions(pa, pb) : 0;
        if (byPosition !== 0)
            return byPosition;
        const byPath = comparePaths(a.path, b.path);
        if (byPath !== 0)
            return byPath;
        return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
    });
}
/** `./templates/config.cue`: a module file as errors.Details shows it with the module root as Cwd. */
function moduleRelative(file) {
    if (file.startsWith('/') || file.startsWith('.'))
        return file;
    return `./${file}`;
}
const build_error_at = (p) => `${moduleRelative(p.file)}:${p.line}:${p.column}`;
/**
 * errors.Details: `path: message` and, when it has some, `:` and one indented position per
 * line. An error about a value the bundle set starts, as the bundle's own errors do, at the
 * bundle's line: `bundle.cue:23:5: values.replcas: field not allowed`, the module's
 * positions after it as `also`.
 */
function describeDiagnostics(diagnostics) {
    return sortAsCue(diagnostics)
        .map((d) => {
        const [first, ...others] = d.positions;
        if (d.inBundle && first) {
            const also = others.length > 0 ? ` (also ${others.map(build_error_at).join(', ')})` : '';
            return `${first.file}:${first.line}:${first.column}: ${d.path ? `${d.path}: ` : ''}${d.message}${also}`;
        }
        const head = `${d.path ? `${d.path}: ` : ''}${d.message}`;
        if (d.positions.length === 0)
            return head;
        return `${head}:\n${d.positions.map((p) => `    ${build_error_at(p)}`).join('\n')}`;
    })
        .join('\n');
}
/** The diagnostics for annotations: positions in the module's real files, generated files left out. */
function annotationDiagnostics(module, diagnostics, generated) {
    return sortAsCue(diagnostics).map(({ inBundle, ...d }) => {
        // A position traced to the bundle is already the user's file as they named it.
        const fromBundle = inBundle ? d.positions.slice(0, 1) : [];
        const inModule = d.positions
            .slice(fromBundle.length)
            .filter((p) => !generated.has(p.file))
            .map((p) => ({ ...p, file: realFile(module, p.file) }));
        return { ...d, positions: [...fromBundle, ...inModule] };
    });
}
function realFile(module, file) {
    if (file.startsWith('/'))
        return file;
    if (module.localPath === undefined)
        return moduleRelative(file);
    return module.localPath === '.' ? file : `${module.localPath}/${file}`;
}

;// CONCATENATED MODULE: ./src/bundle/value-positions.ts
/** A bound on the fields walked, so that huge generated values cost little (their errors just keep the build's positions). */
const MAX_POSITIONS = 5_000;
/** The path of a field below `parent` (`''` for the values themselves), by its selector text. */
function childPath(parent, label) {
    return parent === '' ? label : `${parent}.${label}`;
}
/**
 * Every field and list element of `values` with its position, when that position is in one
 * of `userFiles` (a field that only a schema or a generated file declares has no place of
 * the user's to point to).
 */
function valuePositions(values, userFiles) {
    const found = {};
    let count = 0;
    const record = (path, position) => {
        if (position && userFiles.has(position.file))
            found[path] = position;
    };
    const walk = (value, path) => {
        if (count >= MAX_POSITIONS)
            return;
        const kind = value.kind();
        if (kind === 'struct') {
            for (const field of value.fields()) {
                if (++count > MAX_POSITIONS)
                    return;
                const fieldPath = childPath(path, field.label);
                record(fieldPath, field.position);
                const child = value.lookup(field.label);
                try {
                    walk(child, fieldPath);
                }
                finally {
                    child.free();
                }
            }
        }
        else if (kind === 'list') {
            for (let index = 0; count < MAX_POSITIONS; index++) {
                const element = value.lookup(`[${index}]`);
                try {
                    if (!element.exists())
                        return;
                    count += 1;
                    const elementPath = `${path}[${index}]`;
                    record(elementPath, element.position());
                    walk(element, elementPath);
                }
                finally {
                    element.free();
                }
            }
        }
    };
    walk(values, '');
    return found;
}

;// CONCATENATED MODULE: ./src/module/values-origin.ts
// Where a value in a module build's error came from. A build lays the bundle's values for
// the instance, as CUE text, over the module's values.cue and builds with the result
// (build.ts); CUE's errors then point at lines of that merged values.cue, a file that
// exists nowhere. Each such position is traced back: the merged text says which value
// (CUE path) sits at that line and column, and the bundle evaluation said where the user
// wrote that value (bundle/value-positions.ts): `bundle.cue:23:5`. A value the bundle did
// not set comes from the module's own values.cue, and points there. Positions that cannot
// be traced are dropped rather than shown as lines of a file the user does not have. A
// field the module does not allow also names the module's place that closes the values.



function byPlace(a, b) {
    return a.line - b.line || a.column - b.column;
}
/** Every value of `values` in a CUE text, by place, as compiled under `filename`. */
function locatedValues(engine, source, filename) {
    const root = engine.compile(source, { filename });
    try {
        const values = root.lookup('values');
        try {
            if (!values.exists())
                return [];
            return Object.entries(valuePositions(values, new Set([filename])))
                .map(([path, position]) => ({ path, position }))
                .sort((a, b) => byPlace(a.position, b.position));
        }
        finally {
            values.free();
        }
    }
    finally {
        root.free();
    }
}
/**
 * The value a position of the merged text is in: the last field or list element that
 * starts at or before it, on its line if one does (`replicas: "many"` with the error at
 * `"many"` is `replicas`; a closed nested field has no more text after its own line).
 */
function valueAt(located, position) {
    let found;
    for (const candidate of located) {
        if (byPlace(candidate.position, position) > 0)
            break;
        found = candidate;
    }
    return found?.path;
}
/** The CUE path without its last selector (`a."b.c"[0]` -> `a."b.c"`); undefined for a single label. */
function parentPath(path) {
    let cut = -1;
    let quoted = false;
    for (let i = 0; i < path.length; i++) {
        const char = path[i];
        if (char === '\\' && quoted)
            i += 1;
        else if (char === '"')
            quoted = !quoted;
        else if (!quoted && (char === '.' || char === '[') && i > 0)
            cut = i;
    }
    return cut > 0 ? path.slice(0, cut) : undefined;
}
/** The path and its parents, nearest first: `a.b[0].c`, `a.b[0]`, `a.b`, `a`. */
function selfAndParents(path) {
    const paths = [path];
    for (let parent = parentPath(path); parent !== undefined; parent = parentPath(parent))
        paths.push(parent);
    return paths;
}
/** The first path's position that is found, nearest first. */
function firstFound(paths, find) {
    for (const path of paths) {
        const found = find(path);
        if (found)
            return found;
    }
    return undefined;
}
function samePosition(a, b) {
    return a.file === b.file && a.line === b.line && a.column === b.column;
}
/**
 * The diagnostics with every position in the merged values file traced back (to the
 * bundle's line where the user set the value, else to the module's values.cue), the
 * traced position first, the module's other positions after it; errors that become the
 * same (one typo reaches `timoni.instance.config` and every object's copy of it) once.
 */
function traceValuesPositions(engine, origin, diagnostics) {
    if (!diagnostics.some((d) => d.positions.some((p) => p.file === origin.valuesFile)))
        return [...diagnostics];
    const merged = locatedValues(engine, origin.mergedSource, origin.valuesFile);
    let base;
    const moduleValues = () => {
        base ??= Object.fromEntries(locatedValues(engine, origin.baseSource, origin.valuesFile).map((l) => [l.path, l.position]));
        return base;
    };
    const traced = [];
    const seen = new Map();
    for (const diagnostic of diagnostics) {
        const inValues = diagnostic.positions.filter((p) => p.file === origin.valuesFile);
        const others = diagnostic.positions.filter((p) => p.file !== origin.valuesFile);
        let result = { ...diagnostic, positions: others };
        const path = inValues.map((p) => valueAt(merged, p)).find((p) => p !== undefined);
        if (path !== undefined) {
            const inBundle = firstFound(selfAndParents(path), (p) => origin.bundle.positionOf(p));
            const inModule = inBundle ? undefined : firstFound(selfAndParents(path), (p) => moduleValues()[p]);
            const first = inBundle ?? inModule;
            result = {
                ...result,
                path: childPath('values', path),
                positions: first ? [first, ...others.filter((p) => !samePosition(p, first))] : others,
                ...(inBundle ? { inBundle: true, inputPositionsOnly: false } : {}),
            };
        }
        // One error about one value once: of the copies (`timoni.instance.config.x`, every
        // object's `#config.x`), the one nearest the root says it best, with its own positions.
        const key = JSON.stringify([result.path, result.message, path === undefined ? result.positions : (result.positions[0] ?? null)]);
        const earlier = seen.get(key);
        if (earlier === undefined) {
            seen.set(key, { index: traced.length, depth: diagnostic.path.length });
            traced.push(result);
        }
        else if (diagnostic.path.length < earlier.depth) {
            traced[earlier.index] = result;
            earlier.depth = diagnostic.path.length;
        }
    }
    return traced;
}
/**
 * A field the module's schema does not allow is reported by CUE at the field alone; the
 * place that closes it (`config: #Config`) is added as the module's position, found in the
 * module loaded with its own values (the build that failed has no value to look it up in).
 */
function withClosingPositions(build, diagnostics) {
    const notAllowed = (d) => d.message === 'field not allowed' && d.positions.some((p) => p.file === build.valuesFile);
    if (!diagnostics.some(notAllowed))
        return diagnostics;
    let root;
    try {
        root = build.loadWithValues(build.baseSource);
    }
    catch (error) {
        // The module does not build with its own values either: there is no schema to point at.
        if (error instanceof CueError)
            return diagnostics;
        throw error;
    }
    try {
        return diagnostics.map((diagnostic) => {
            const parent = notAllowed(diagnostic) ? parentPath(diagnostic.path) : undefined;
            if (parent === undefined)
                return diagnostic;
            const closing = root.lookup(parent);
            try {
                const position = closing.exists() ? closing.position() : undefined;
                return position && position.file !== build.valuesFile ? { ...diagnostic, positions: [...diagnostic.positions, position] } : diagnostic;
            }
            finally {
                closing.free();
            }
        });
    }
    finally {
        root.free();
    }
}
/**
 * The build's diagnostics traced back to the bundle (the bundle evaluated again for it, then
 * released); undefined when that evaluation fails, and the build's own positions stay.
 */
function traceBuildErrors(build, diagnostics) {
    if (!diagnostics.some((d) => d.positions.some((p) => p.file === build.valuesFile)))
        return undefined;
    let bundle;
    try {
        bundle = build.locateValues();
        const origin = { valuesFile: build.valuesFile, mergedSource: build.mergedSource, baseSource: build.baseSource, bundle };
        return traceValuesPositions(build.engine, origin, withClosingPositions(build, diagnostics));
    }
    catch (error) {
        if (error instanceof CueError || error instanceof CueFilesError)
            return undefined;
        throw error;
    }
    finally {
        bundle?.free();
    }
}

;// CONCATENATED MODULE: ./src/module/build.ts
// Builds one instance of a module into Kubernetes objects, as Timoni's module builder
// does: the bundle's values (CUE text) are merged onto the module's values.cue (in memory,
// as OverlayValuesFileWithDefaults does), the instance schema is added as
// timoni.schema.cue, the package is loaded with the `name` and `namespace` tags and the
// `moduleVersion` and `kubeVersion` tag variables, `timoni.instance` must be concrete, and
// the objects of each `timoni.apply` set are read in declaration order (bytes fields
// decoded as Timoni's YAML path does: apply-sets.ts). InstanceBuilds runs each distinct
// build once per run.





const DEFAULT_KUBE_VERSION = '1.36.3';
/** The Kubernetes version builds use when no cluster is involved (TIMONI_KUBE_VERSION or 1.36.3). */
function kubeVersionWithoutCluster(env) {
    return env.TIMONI_KUBE_VERSION || DEFAULT_KUBE_VERSION;
}
/**
 * The files the build makes up in memory (no line of theirs exists on disk): the merged
 * values.cue, unless its positions were traced back, and the instance schema.
 */
function generatedFiles(prefix, valuesTraced) {
    return new Set([...(valuesTraced ? [] : [`${prefix}values.cue`]), `${prefix}${INSTANCE_SCHEMA_FILE}`]);
}
/**
 * An error with CUE diagnostics, described as Timoni's describeErr does, except that
 * positions in the merged values.cue are traced back to the bundle's lines
 * (values-origin.ts): the file the user wrote, not one made up in memory.
 */
function cueFailure(context, step, diagnostics) {
    const { input, module, prefix } = context;
    const traced = traceValues(context, diagnostics);
    const described = traced ?? diagnostics;
    const details = described.length > 0 ? `:\n${describeDiagnostics(described)}` : '';
    return new InstanceBuildError(input.name, module.url, `${step}${details}`, annotationDiagnostics(module, described, generatedFiles(prefix, traced !== undefined)));
}
/** The diagnostics with the merged values' positions traced back; undefined when there is nothing to trace them to. */
function traceValues(context, diagnostics) {
    const { mergedSource, input, loadOptions } = context;
    const baseSource = context.module.files[`${context.prefix}values.cue`];
    if (mergedSource === undefined || !input.locateValues || !loadOptions || typeof baseSource !== 'string')
        return undefined;
    return traceBuildErrors({ engine: context.engine, valuesFile: `${context.prefix}values.cue`, mergedSource, baseSource, locateValues: input.locateValues, loadWithValues: (source) => context.engine.load(loadOptions(source)) }, diagnostics);
}
function buildFailure(context, step, error) {
    if (error instanceof CueError)
        return cueFailure(context, step, error.diagnostics);
    if (error instanceof ApplySetExportError)
        return new InstanceBuildError(context.input.name, context.module.url, `${step}: ${error.message}`);
    return error;
}
function withCueErrors(context, step, run) {
    try {
        return run();
    }
    catch (error) {
        throw buildFailure(context, step, error);
    }
}
function requireValid(value, context) {
    const diagnostics = value.validate({ concrete: true, final: true });
    if (diagnostics.length > 0)
        throw cueFailure(context, 'build failed', diagnostics);
}
/**
 * Builds one instance. The package's evaluation, most of a build, is answered through the
 * event loop (`loadAsync`): with the native engine this thread goes on meanwhile (the
 * clusters' requests of a fleet run); the steps around it are blocking calls.
 */
async function buildInstance(engine, module, input) {
    const packageName = input.packageName ?? 'main';
    const packageDir = packageName === 'main' ? '.' : packageName;
    const prefix = packageDir === '.' ? '' : `${packageDir}/`;
    const valuesPath = `${prefix}values.cue`;
    const baseValues = module.files[valuesPath];
    if (typeof baseValues !== 'string')
        throw new InstanceBuildError(input.name, module.url, `the module has no ${valuesPath}`);
    const context = { engine, input, module, prefix };
    const merged = withCueErrors(context, 'merging values', () => engine.mergeInstanceValues({ base: baseValues, overlays: [input.values], packageName }));
    context.mergedSource = merged.source;
    context.loadOptions = (valuesSource) => ({
        files: { ...module.files, [valuesPath]: valuesSource, [`${prefix}${INSTANCE_SCHEMA_FILE}`]: instanceSchemaSource(packageName) },
        dir: packageDir,
        moduleRoot: '.',
        package: packageName,
        tags: [`name=${input.name}`, `namespace=${input.namespace}`],
        tagVars: { moduleVersion: module.version, kubeVersion: input.kubeVersion },
        dataFiles: true,
    });
    const root = await engine
        .loadAsync(context.loadOptions(merged.source))
        .catch((error) => Promise.reject(buildFailure(context, 'build failed', error)));
    try {
        const instance = root.lookup('timoni.instance');
        try {
            if (!instance.exists())
                throw new InstanceBuildError(input.name, module.url, 'the module defines no timoni.instance');
            requireValid(instance, context);
        }
        finally {
            instance.free();
        }
        const sets = withCueErrors(context, 'reading timoni.apply', () => readApplySets(root, context));
        const config = root.lookup('timoni.instance.config');
        const images = config.exists() ? collectImages(config.toJSON()) : [];
        config.free();
        return { sets, images, valuesSource: merged.source, values: merged.values };
    }
    finally {
        root.free();
    }
}
function readApplySets(root, context) {
    const { input, module } = context;
    const apply = root.lookup('timoni.apply');
    try {
        if (!apply.exists())
            throw new InstanceBuildError(input.name, module.url, 'the module defines no timoni.apply');
        requireValid(apply, context);
        const problems = [];
        const sets = apply.fields().map((field) => {
            const set = apply.lookup(field.label);
            try {
                const items = exportApplySet(set, `timoni.apply.${field.label}`);
                if (!Array.isArray(items)) {
                    problems.push(`timoni.apply.${field.label} must be a list of objects`);
                    return { name: field.name, objects: [] };
                }
                const { objects, problems: setProblems } = objectsOfSet(`timoni.apply.${field.label}`, items);
                problems.push(...setProblems);
                return { name: field.name, objects };
            }
            finally {
                set.free();
            }
        });
        if (problems.length > 0)
            throw new InstanceBuildError(input.name, module.url, `invalid objects:\n  ${problems.join('\n  ')}`);
        return sets;
    }
    finally {
        apply.free();
    }
}
// The container images an instance uses: every struct in `timoni.instance.config` that
// has the fields of Timoni's #Image (repository, tag, digest, reference) contributes its
// reference; sorted, without duplicates, as Timoni records them in the inventory.
function build_isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const IMAGE_FIELDS = ['repository', 'tag', 'digest', 'reference'];
function collectImages(config) {
    const found = new Set();
    const walk = (value) => {
        if (Array.isArray(value)) {
            value.forEach(walk);
            return;
        }
        if (!build_isRecord(value))
            return;
        if (IMAGE_FIELDS.every((field) => field in value) && typeof value.reference === 'string')
            found.add(value.reference);
        Object.values(value).forEach(walk);
    };
    walk(config);
    return [...found].sort();
}
// One build per distinct input in a run. A fleet of N clusters and M instances builds each
// instance for each cluster, but most clusters of a fleet give an instance the same values
// (all production clusters, say): those builds are the same CUE evaluation with the same
// result. Builds are remembered for the run by everything that decides their result (the
// module as resolved for the run, instance name and namespace, the values, the Kubernetes
// version, the package), so that the cost grows with the distinct inputs, not with N x M.
// Each caller gets its own copy of the result, so that nothing one cluster does to its
// objects reaches another. A failed build is remembered too: the same input fails the same way.
class InstanceBuilds {
    engine;
    #byModule = new WeakMap();
    /** The build the engine works on (or last worked on): builds go to it one at a time. */
    #last = Promise.resolve();
    #builds = 0;
    #reused = 0;
    constructor(engine) {
        this.engine = engine;
    }
    /**
     * The instance built (once for each distinct input: a build in flight is shared too).
     * Builds run one after the other, in the order asked: while the engine evaluates one,
     * the blocking calls that finish the one before it would otherwise wait behind it.
     */
    async build(module, input) {
        let outcomes = this.#byModule.get(module);
        if (!outcomes) {
            outcomes = new Map();
            this.#byModule.set(module, outcomes);
        }
        const key = JSON.stringify([input.name, input.namespace, input.kubeVersion, input.packageName ?? 'main', input.values]);
        let outcome = outcomes.get(key);
        if (outcome) {
            this.#reused += 1;
        }
        else {
            this.#builds += 1;
            outcome = this.#last.then(() => buildInstance(this.engine, module, input));
            this.#last = outcome.catch(() => undefined);
            outcomes.set(key, outcome);
        }
        return structuredClone(await outcome);
    }
    /** How many builds ran, and how many were answered from an earlier one. */
    counts() {
        return { builds: this.#builds, reused: this.#reused };
    }
}
// The instance schema a module is built against: an in-memory `timoni.schema.cue` of the
// module's package binding `timoni: #Timoni`, with the health-check definitions beside it
// so modules can use them without vendoring a newer schema. Same rules as Timoni v0.32's
// #Timoni and #HealthCheck; written here.
const INSTANCE_SCHEMA_FILE = 'timoni.schema.cue';
const schemaBody = `#Timoni: {
	apiVersion: string & =~"^v1alpha1$"
	instance: {...}
	apply: [string]: [...]
	healthChecks?: [string]: #HealthCheck
	kubeMinorVersion?: int
}

#HealthCheck: {
	group!: string & =~"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	kind?: string
	#object: {...}
	current!:    bool
	failed?:     bool
	inProgress?: bool
	...
}

#HealthCheckForCondition: #HealthCheck & {
	conditionType:       string | *"Ready"
	failedConditionType: string | *"Stalled"

	#object: {
		metadata: {generation?: int, ...}
		status?: {
			observedGeneration?: int
			conditions?: [...{type?: string, status?: string, observedGeneration?: int, ...}]
			...
		}
		...
	}

	let _fresh = {
		#c: {...}
		out: [
			if #c.observedGeneration != _|_ {#c.observedGeneration == #object.metadata.generation},
			true,
		][0]
	}

	inProgress: [
		if #object.status.observedGeneration != _|_ {
			#object.status.observedGeneration != #object.metadata.generation
		},
		false,
	][0]

	current: len([
		for c in #object.status.conditions
		if c.type == conditionType && c.status == "True"
		if (_fresh & {#c: c}).out {c},
	]) > 0

	failed: len([
		for c in #object.status.conditions
		if c.type == failedConditionType && c.status == "True"
		if (_fresh & {#c: c}).out {c},
	]) > 0
}

timoni: #Timoni
`;
/** The schema file's text for a module package (`main` unless the module says otherwise). */
function instanceSchemaSource(packageName) {
    return `package ${packageName}\n\n${schemaBody}`;
}

;// CONCATENATED MODULE: ./src/fleet/instance-failures.ts

/** The failure of an instance as a ClusterStepError naming it (what the builds throw already is one). */
function instanceStepError(error, fallbackStep, instance) {
    if (error instanceof ClusterStepError && error.instance === instance)
        return error;
    return new ClusterStepError(fallbackStep, error, instance);
}
/** The instance's own error, as the ChangeSet holds it. */
function instanceError(failure) {
    return { step: failure.step, message: failure.message, ...(failure.object ? { object: failure.object } : {}) };
}
/**
 * The ChangeSet entry of an instance that did not build: what the bundle says of it (name,
 * namespace, module as referenced; no digest unless the bundle pins one) and its error.
 */
function unbuiltInstanceEntry(instance, failure) {
    const { url, version, digest } = instance.module;
    return { name: instance.name, namespace: instance.namespace, module: { url, version, digest: digest ?? '' }, changes: [], error: instanceError(failure) };
}
/** The entry of an instance built but whose dry-run stopped: the changes found before, and its error. */
function undiffedInstanceEntry(instance, failure, changes) {
    return { ...instance, changes, error: instanceError(failure) };
}
/** An instance's error as its cluster's: the same step, message and object, naming the instance. */
function clusterErrorOfInstance(instance, error) {
    return { step: error.step, message: error.message, instance, ...(error.object ? { object: error.object } : {}) };
}
function instanceList(names) {
    return names.length === 1 ? `instance ${names[0]}` : `instances ${names.join(', ')}`;
}
/**
 * Every instance of the cluster built, in bundle order. When one or more did not build,
 * each is added to `into` (bundle order) with its error, each error is told once, and the
 * cluster fails at `build`, naming the first instance that did not build, with an error
 * that says nothing was applied (its cause is that instance's failure, for annotations).
 */
async function builtOrNothing(cluster, started, into, line) {
    const settled = await Promise.allSettled(started.instances);
    const built = [];
    const failures = [];
    settled.forEach((outcome, index) => {
        if (outcome.status === 'fulfilled') {
            built.push(outcome.value);
            return;
        }
        const instance = started.evaluated.bundle.instances[index];
        if (!instance)
            throw new Error(`cluster ${cluster}: the build of instance ${index + 1} has no instance in the bundle`);
        const failure = instanceStepError(outcome.reason, 'build', instance.name);
        failures.push(failure);
        into.push(unbuiltInstanceEntry(instance, failure));
        line(`✗ ${failure.message}`);
    });
    const first = failures[0];
    if (!first)
        return built;
    const names = failures.map((failure) => failure.instance ?? '');
    const notBuilt = `${instanceList(names)} did not build`;
    throw new ClusterStepError('build', new Error(`nothing was applied to cluster ${cluster}: ${notBuilt} (an apply is all or nothing per cluster)`, { cause: first }), first.instance);
}

;// CONCATENATED MODULE: ./src/kube/inventory-pending.ts
// The two writes Timoni v0.32 makes to an instance Secret besides the full record
// (internal/runtime/storage.go): the pending revision of an upgrade, saved before the
// cluster is touched, next to the stored record left byte for byte as it was; and the
// `status.timoni.sh/deleting` mark of an instance being deleted.



/** Annotation on an instance Secret whose objects are being deleted (Timoni's DeleteInProgressAnnotation). */
const deletingAnnotation = 'status.timoni.sh/deleting';
const inventory_pending_secretRef = (name, namespace) => ({ apiVersion: 'v1', kind: 'Secret', namespace, name: instanceSecretName(name) });
/**
 * Saves `pending` as `data.pending` of the existing instance Secret, keeping `data.instance`
 * and the Secret's labels untouched (one server-side apply); answers the pending record.
 */
async function savePending(cluster, pending, now = new Date()) {
    const where = `Secret/${pending.namespace}/${instanceSecretName(pending.name)}`;
    const existing = await cluster.get(inventory_pending_secretRef(pending.name, pending.namespace));
    if (!existing)
        throw new Error(`cluster ${cluster.name}: ${where}: instance storage not found`);
    const data = isRecord(existing.data) ? existing.data : {};
    const stored = data[instanceDataKey];
    if (typeof stored !== 'string')
        throw new Error(`cluster ${cluster.name}: instance data not found in ${where}`);
    const record = { ...pending, lastTransitionTime: rfc3339(now) };
    delete record.creationTimestamp;
    const secret = instanceSecret({ ...record, labels: undefined });
    secret.metadata.labels = { ...secret.metadata.labels, ...existing.metadata.labels };
    secret.data = { [instanceDataKey]: stored, [pendingDataKey]: Buffer.from(encodeInstance(record)).toString('base64') };
    await serverSideApply(cluster, secret);
    return record;
}
/** Marks the instance Secret as being deleted (merge patch of one annotation; the record stays). */
async function markDeleting(cluster, name, namespace, now = new Date()) {
    const ref = inventory_pending_secretRef(name, namespace);
    const { path } = await cluster.locate(ref);
    await cluster.client.request({
        method: 'PATCH',
        path,
        query: { fieldManager: fieldManager },
        body: { metadata: { annotations: { [deletingAnnotation]: rfc3339(now) } } },
        contentType: 'application/merge-patch+json',
        object: ref,
    });
}

;// CONCATENATED MODULE: ./src/kube/kstatus.ts

const current = (message) => ({ status: 'Current', message });
const inProgress = (message) => ({ status: 'InProgress', message });
const failed = (message) => ({ status: 'Failed', message });
/** A field read by a dotted path, e.g. `spec.replicas`. */
function field(object, path) {
    let value = object;
    for (const part of path.split('.')) {
        if (!isRecord(value))
            return undefined;
        value = value[part];
    }
    return value;
}
function kstatus_int(object, path, fallback) {
    const value = field(object, path);
    return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback;
}
function str(object, path, fallback) {
    const value = field(object, path);
    return typeof value === 'string' ? value : fallback;
}
function conditions(object) {
    const list = field(object, 'status.conditions');
    if (!Array.isArray(list))
        return [];
    return list.filter(isRecord).map((c) => ({
        type: String(c.type ?? ''),
        status: String(c.status ?? ''),
        reason: String(c.reason ?? ''),
        message: String(c.message ?? ''),
    }));
}
function hasCondition(object, type, status) {
    return conditions(object).some((c) => c.type === type && c.status === status);
}
/** Deletion, observed generation, and the standard Reconciling / Stalled conditions. */
function genericStatus(object) {
    if (typeof object.metadata.deletionTimestamp === 'string' && object.metadata.deletionTimestamp) {
        return { status: 'Terminating', message: 'Resource scheduled for deletion' };
    }
    const generation = object.metadata.generation;
    const observed = field(object, 'status.observedGeneration');
    if (typeof generation === 'number' && typeof observed === 'number' && observed !== generation) {
        return inProgress(`${object.kind} generation is ${generation}, but latest observed generation is ${observed}`);
    }
    for (const c of conditions(object)) {
        if (c.type === 'Reconciling' && c.status === 'True')
            return inProgress(c.message || c.reason || 'Reconciling');
        if (c.type === 'Stalled' && c.status === 'True')
            return failed(c.message || c.reason || 'Stalled');
    }
    return null;
}
function deploymentStatus(o) {
    // Without progressDeadlineSeconds the controller never sets Progressing: treat as progressing.
    let progressing = field(o, 'spec.progressDeadlineSeconds') === undefined;
    let available = false;
    for (const c of conditions(o)) {
        if (c.type === 'Progressing') {
            if (c.reason === 'ProgressDeadlineExceeded')
                return failed(`Progress deadline exceeded${c.message ? `: ${c.message}` : ''}`);
            if (c.status === 'True' && c.reason === 'NewReplicaSetAvailable')
                progressing = true;
        }
        if (c.type === 'Available' && c.status === 'True')
            available = true;
    }
    const spec = kstatus_int(o, 'spec.replicas', 1);
    const replicas = kstatus_int(o, 'status.replicas', 0);
    const updated = kstatus_int(o, 'status.updatedReplicas', 0);
    const ready = kstatus_int(o, 'status.readyReplicas', 0);
    const availableReplicas = kstatus_int(o, 'status.availableReplicas', 0);
    if (spec > replicas)
        return inProgress(`Replicas: ${replicas}/${spec}`);
    if (spec > updated)
        return inProgress(`Updated: ${updated}/${spec}`);
    if (replicas > spec)
        return inProgress(`Pending termination: ${replicas - spec}`);
    if (updated > availableReplicas)
        return inProgress(`Available: ${availableReplicas}/${updated}`);
    if (spec > ready)
        return inProgress(`Ready: ${ready}/${spec}`);
    if (!progressing)
        return inProgress('ReplicaSet not Available');
    if (!available)
        return inProgress('Deployment not Available');
    return current(`Deployment is available. Replicas: ${replicas}`);
}
function statefulSetStatus(o) {
    if (str(o, 'spec.updateStrategy.type', '') === 'OnDelete')
        return current('StatefulSet is using the ondelete update strategy');
    const spec = kstatus_int(o, 'spec.replicas', 1);
    const ready = kstatus_int(o, 'status.readyReplicas', 0);
    const currentReplicas = kstatus_int(o, 'status.currentReplicas', 0);
    const updated = kstatus_int(o, 'status.updatedReplicas', 0);
    const replicas = kstatus_int(o, 'status.replicas', 0);
    const partition = kstatus_int(o, 'spec.updateStrategy.rollingUpdate.partition', -1);
    if (spec > replicas)
        return inProgress(`Replicas: ${replicas}/${spec}`);
    if (spec > ready)
        return inProgress(`Ready: ${ready}/${spec}`);
    if (replicas > spec)
        return inProgress(`Pending termination: ${replicas - spec}`);
    if (partition !== -1) {
        if (updated < spec - partition)
            return inProgress(`updated: ${updated}/${spec - partition}`);
        return current(`Partition rollout complete. updated: ${updated}`);
    }
    if (spec > currentReplicas)
        return inProgress(`current: ${currentReplicas}/${spec}`);
    if (str(o, 'status.currentRevision', '') !== str(o, 'status.updateRevision', ''))
        return inProgress('Waiting for updated revision to match current');
    return current(`All replicas scheduled as expected. Replicas: ${replicas}`);
}
function daemonSetStatus(o) {
    if (typeof o.metadata.generation !== 'number')
        return inProgress(`${o.kind} metadata.generation not found`);
    if (typeof field(o, 'status.observedGeneration') !== 'number')
        return inProgress(`${o.kind} status.observedGeneration not found`);
    const desired = kstatus_int(o, 'status.desiredNumberScheduled', -1);
    const scheduled = kstatus_int(o, 'status.currentNumberScheduled', 0);
    const updated = kstatus_int(o, 'status.updatedNumberScheduled', 0);
    const availableNumber = kstatus_int(o, 'status.numberAvailable', 0);
    const ready = kstatus_int(o, 'status.numberReady', 0);
    if (desired === -1)
        return inProgress('Missing .status.desiredNumberScheduled');
    if (desired > scheduled)
        return inProgress(`Current: ${scheduled}/${desired}`);
    if (desired > updated)
        return inProgress(`Updated: ${updated}/${desired}`);
    if (desired > availableNumber)
        return inProgress(`Available: ${availableNumber}/${desired}`);
    if (desired > ready)
        return inProgress(`Ready: ${ready}/${desired}`);
    return current(`All replicas scheduled as expected. Replicas: ${desired}`);
}
function replicaSetStatus(o) {
    if (hasCondition(o, 'ReplicaFailure', 'True'))
        return inProgress('Replica Failure condition. Check Pods');
    const spec = kstatus_int(o, 'spec.replicas', 1);
    const replicas = kstatus_int(o, 'status.replicas', 0);
    const ready = kstatus_int(o, 'status.readyReplicas', 0);
    const availableReplicas = kstatus_int(o, 'status.availableReplicas', 0);
    const labelled = kstatus_int(o, 'status.fullyLabeledReplicas', 0);
    if (spec > labelled)
        return inProgress(`Labelled: ${labelled}/${spec}`);
    if (spec > availableReplicas)
        return inProgress(`Available: ${availableReplicas}/${spec}`);
    if (spec > ready)
        return inProgress(`Ready: ${ready}/${spec}`);
    if (replicas > spec)
        return inProgress(`Pending termination: ${replicas - spec}`);
    return current(`ReplicaSet is available. Replicas: ${replicas}`);
}
/** Timoni's Job rule (internal/runtime/job_wait.go): Current only once complete (or suspended). */
function jobStatus(o) {
    if (field(o, 'spec.suspend') === true)
        return current('Job is suspended');
    const parallelism = kstatus_int(o, 'spec.parallelism', 1);
    const completions = kstatus_int(o, 'spec.completions', parallelism);
    const succeeded = kstatus_int(o, 'status.succeeded', 0);
    const active = kstatus_int(o, 'status.active', 0);
    const failedPods = kstatus_int(o, 'status.failed', 0);
    for (const c of conditions(o)) {
        if (c.type === 'Complete' && c.status === 'True')
            return current(`Job Completed. succeeded: ${succeeded}/${completions}`);
        if (c.type === 'Failed' && c.status === 'True') {
            return failed(`Job Failed. failed: ${failedPods}/${completions}${c.message ? ` error: ${c.message}` : ''}`);
        }
    }
    if (!str(o, 'status.startTime', ''))
        return inProgress(`Job not started. active: 0/${parallelism}`);
    return inProgress(`Job in progress. success:${succeeded}, active: ${active}, failed: ${failedPods}`);
}
/** Plain kstatus' Job rule (what `timoni status` shows): a started Job is Current. */
function startedJobStatus(o) {
    const result = jobStatus(o);
    if (result.status === 'InProgress' && str(o, 'status.startTime', ''))
        return current(result.message);
    return result;
}
function pvcStatus(o) {
    const phase = str(o, 'status.phase', 'unknown');
    return phase === 'Bound' ? current('PVC is Bound') : inProgress(`PVC is not Bound. phase: ${phase}`);
}
function crdStatus(o) {
    for (const c of conditions(o)) {
        if (c.type === 'NamesAccepted' && c.status === 'False')
            return failed(c.message || c.reason || 'names not accepted');
        if (c.type === 'Established') {
            if (c.status === 'False' && c.reason !== 'Installing')
                return failed(c.message || c.reason || 'not established');
            if (c.status === 'True')
                return current('CRD is established');
        }
    }
    return inProgress('Install in progress');
}
function namespaceStatus(o) {
    const phase = str(o, 'status.phase', '');
    if (phase === 'Active')
        return current('Namespace is active');
    if (phase === 'Terminating')
        return { status: 'Terminating', message: 'Namespace is terminating' };
    return inProgress(`Namespace is not active. phase: ${phase || 'unknown'}`);
}
function podStatus(o) {
    const phase = str(o, 'status.phase', '');
    switch (phase) {
        case 'Succeeded':
            return current('Pod has completed successfully');
        case 'Failed':
            return current('Pod has completed, but not successfully');
        case 'Running': {
            if (hasCondition(o, 'Ready', 'True'))
                return current('Pod is Ready');
            const statuses = field(o, 'status.containerStatuses');
            const crashing = (Array.isArray(statuses) ? statuses.filter(isRecord) : [])
                .filter((s) => isRecord(s.state) && isRecord(s.state.waiting) && s.state.waiting.reason === 'CrashLoopBackOff')
                .map((s) => String(s.name));
            if (crashing.length > 0)
                return failed(`Containers in CrashLoop state: ${crashing.join(',')}`);
            return inProgress('Pod is running but is not Ready');
        }
        case 'Pending': {
            const unschedulable = conditions(o).find((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');
            if (unschedulable) {
                const created = Date.parse(String(o.metadata.creationTimestamp ?? ''));
                // kstatus gives a Pod 15 s to be scheduled before calling it unschedulable.
                if (Number.isNaN(created) || Date.now() - created < 15_000)
                    return inProgress('Pod has not been scheduled');
                return failed('Pod could not be scheduled');
            }
            return inProgress('Pod is in the Pending phase');
        }
        case '':
            return inProgress('Pod phase not available');
        default:
            return { status: 'Unknown', message: `unknown Pod phase ${phase}` };
    }
}
function serviceStatus(o) {
    if (str(o, 'spec.type', 'ClusterIP') === 'LoadBalancer' && !str(o, 'spec.clusterIP', '')) {
        return inProgress('ClusterIP not set. Service type: LoadBalancer');
    }
    return current('Service is ready');
}
const alwaysReady = () => current('Resource is always ready');
/** Rules per `group/Kind` (`Kind` for the core group), as kstatus' legacy types. */
const kindRules = {
    Service: serviceStatus,
    Pod: podStatus,
    Secret: alwaysReady,
    ConfigMap: alwaysReady,
    PersistentVolumeClaim: pvcStatus,
    Namespace: namespaceStatus,
    'apps/StatefulSet': statefulSetStatus,
    'apps/DaemonSet': daemonSetStatus,
    'extensions/DaemonSet': daemonSetStatus,
    'apps/Deployment': deploymentStatus,
    'extensions/Deployment': deploymentStatus,
    'apps/ReplicaSet': replicaSetStatus,
    'extensions/ReplicaSet': replicaSetStatus,
    'policy/PodDisruptionBudget': () => current('AllowedDisruptions has been computed.'),
    'batch/CronJob': alwaysReady,
    'batch/Job': jobStatus,
    'apiextensions.k8s.io/CustomResourceDefinition': crdStatus,
};
function readyCondition(o) {
    const ready = conditions(o).find((c) => c.type === 'Ready');
    if (!ready)
        return null;
    if (ready.status === 'True')
        return current('Resource is Ready');
    if (ready.status === 'False' || ready.status === 'Unknown')
        return inProgress(ready.message || ready.reason || `Ready is ${ready.status}`);
    return null;
}
/**
 * The kstatus of a live object (null = not found): generic rules first (deletion,
 * observedGeneration, Reconciling/Stalled), then the kind's rule, then a `Ready`
 * condition; an object no rule speaks about is Current.
 */
function computeStatus(object, options = {}) {
    if (!object)
        return { status: 'NotFound', message: 'Resource not found' };
    const generic = genericStatus(object);
    if (generic)
        return generic;
    const group = groupOf(object.apiVersion);
    const key = group ? `${group}/${object.kind}` : object.kind;
    const rule = key === 'batch/Job' && options.jobs === 'started' ? startedJobStatus : kindRules[key];
    if (rule)
        return rule(object);
    return readyCondition(object) ?? current('Resource is current');
}

;// CONCATENATED MODULE: ./src/kube/wait.ts
// Waiting for objects: until every one is Current (kstatus, polled with GETs and a
// growing interval), or until they are gone. Objects annotated
// `action.timoni.sh/wait: disabled` are not waited for. A timeout, a Failed object
// (fail fast, as Timoni waits) or an abort (the run's cancellation) ends the wait with an
// error that lists every object not ready, with its status and why: an abort ends it after
// the round of reads in flight, or the first one, so that the list is the cluster's own.




/** The wait ended before every object was ready (or gone). */
class WaitError extends Error {
    cluster;
    reason;
    notReady;
    timeoutMs;
    name = 'WaitError';
    constructor(cluster, reason, 
    /** Every object not ready (or not gone), with its last known status. */
    notReady, timeoutMs, what = 'ready') {
        const head = reason === 'timeout'
            ? `timeout (time limit ${formatLimit(timeoutMs)}) waiting for ${notReady.length} object(s) to be ${what}`
            : reason === 'failed'
                ? `${notReady.filter((o) => o.status === 'Failed').length} object(s) failed`
                : `wait for ${notReady.length} object(s) to be ${what} was aborted`;
        super(`cluster ${cluster}: ${head}: ${notReady.map((o) => `${formatRef(o.object)} status: '${o.status}': ${o.message}`).join('; ')}`);
        this.cluster = cluster;
        this.reason = reason;
        this.notReady = notReady;
        this.timeoutMs = timeoutMs;
    }
}
/** The objects to wait for: all but those annotated `action.timoni.sh/wait: disabled`. */
function objectsToWaitFor(objects) {
    return objects.filter((object) => !anyInMetadata(object, { [annotations.wait]: disabledValue }));
}
/** The kstatus of one object as the cluster has it now; errors become `Unknown`. */
async function readObjectStatus(cluster, ref, options = {}) {
    try {
        const live = await cluster.get(ref);
        return { object: ref, ...computeStatus(live, options) };
    }
    catch (error) {
        if (error instanceof NoMatchError)
            return { object: ref, status: 'Unknown', message: `kind ${ref.kind} of ${ref.apiVersion} is not served (yet)` };
        return { object: ref, status: 'Unknown', message: `status not read: ${error.message}` };
    }
}
/** Resolves after `ms`, or rejects when the signal aborts. */
function sleep(ms, signal) {
    return new Promise((resolveSleep, reject) => {
        if (signal?.aborted)
            return reject(signal.reason);
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal.reason);
        };
        const timer = setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolveSleep();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
    });
}
const toRef = (object) => ('metadata' in object ? refOf(object) : object);
/**
 * Polls until `check` says every object is done, with a doubling interval; throws a
 * WaitError naming the objects not done on timeout, fail-fast or abort.
 */
async function poll(cluster, refs, options, check, isDone, what) {
    const deadline = options.deadline ?? Date.now() + options.timeoutMs;
    const results = new Map(refs.map((ref) => [formatRef(ref), { object: ref, status: 'Unknown', message: 'not checked yet' }]));
    let pending = refs;
    let interval = options.intervalMs ?? 250;
    const maxInterval = options.maxIntervalMs ?? 5_000;
    const notDone = () => [...results.values()].filter((r) => !isDone(r));
    for (;;) {
        // One round of reads at least, even when aborted already, so that the error says which objects were not ready.
        const round = await Promise.all(pending.map(check));
        for (const readiness of round)
            results.set(formatRef(readiness.object), readiness);
        pending = round.filter((r) => !isDone(r)).map((r) => r.object);
        if (pending.length === 0)
            return [...results.values()];
        if (options.signal?.aborted)
            throw new WaitError(cluster.name, 'aborted', notDone(), options.timeoutMs, what);
        options.onProgress?.(notDone());
        if (what === 'ready' && (options.failFast ?? true) && round.some((r) => r.status === 'Failed')) {
            throw new WaitError(cluster.name, 'failed', notDone(), options.timeoutMs, what);
        }
        const left = deadline - Date.now();
        if (left <= 0)
            throw new WaitError(cluster.name, 'timeout', notDone(), options.timeoutMs, what);
        try {
            await sleep(Math.min(interval, left), options.signal);
        }
        catch {
            throw new WaitError(cluster.name, 'aborted', notDone(), options.timeoutMs, what);
        }
        interval = Math.min(interval * 2, maxInterval);
    }
}
/**
 * Waits until every object is Current; objects (not bare refs) annotated
 * `action.timoni.sh/wait: disabled` are left out. Answers the last status of each object
 * waited for, in the order given.
 */
function waitForReady(cluster, objects, options) {
    const refs = objects.filter((o) => !('metadata' in o) || objectsToWaitFor([o]).length === 1).map(toRef);
    if (refs.length === 0)
        return Promise.resolve([]);
    return poll(cluster, refs, options, (ref) => readObjectStatus(cluster, ref), (r) => r.status === 'Current', 'ready');
}
/** Waits until every object is gone (NotFound). */
async function waitForDeletion(cluster, objects, options) {
    const refs = objects.map(toRef);
    if (refs.length === 0)
        return;
    await poll(cluster, refs, { ...options, failFast: false }, async (ref) => {
        try {
            return { object: ref, ...computeStatus(await cluster.get(ref)) };
        }
        catch (error) {
            // A kind no longer served (its CRD went first) has no objects left.
            if (error instanceof NoMatchError)
                return { object: ref, status: 'NotFound', message: 'kind no longer served' };
            return { object: ref, status: 'Unknown', message: `status not read: ${error.message}` };
        }
    }, (r) => r.status === 'NotFound', 'deleted');
}

;// CONCATENATED MODULE: ./src/kube/instance-delete.ts





/** Deletes one stored instance: its objects, then its Secret. */
async function deleteStoredInstance(cluster, stored, options = {}, deadline = Date.now() + (options.timeoutMs ?? 300_000)) {
    const { name, namespace } = stored.instance;
    const id = instanceId(stored.instance);
    const wait = options.wait ?? true;
    let changes = [];
    const fail = (step, error, object) => {
        throw new InstanceStepError(cluster.name, step, id, [...changes], error, object);
    };
    options.log?.(`deleting instance ${name} in namespace ${namespace}`);
    try {
        if (wait)
            await markDeleting(cluster, name, namespace);
    }
    catch (error) {
        fail('delete', error, `Secret/${namespace}/timoni.${name}`);
    }
    try {
        changes = await deleteObjects(cluster, inventoryObjects(stored), stored.instance, { log: options.log });
    }
    catch (error) {
        const partial = error;
        if (partial.changes)
            changes = partial.changes;
        fail('delete', error, typeof partial.object === 'string' ? partial.object : undefined);
    }
    if (wait) {
        const gone = changes.filter((c) => c.action === 'deleted' && c.diff).map((c) => ({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name }));
        try {
            if (gone.length > 0)
                options.log?.(`waiting for ${gone.length} resource(s) to be finalized...`);
            await waitForDeletion(cluster, gone, { timeoutMs: options.timeoutMs ?? 300_000, deadline, signal: options.signal, intervalMs: options.pollIntervalMs });
            if (gone.length > 0)
                options.log?.('all resources have been deleted');
        }
        catch (error) {
            fail('wait', error);
        }
    }
    try {
        await deleteInstance(cluster, name, namespace);
    }
    catch (error) {
        fail('inventory', error, `Secret/${namespace}/timoni.${name}`);
    }
    return { name, namespace, changes };
}
/** Deletes every instance of the bundle in the cluster, newest first; stops at the first failure. */
async function deleteBundleInstances(cluster, bundle, options = {}) {
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    const stored = await listInstances(cluster, '', bundle);
    // As Timoni's bundle delete: said, and not an error.
    if (stored.length === 0)
        options.log?.('no instances found in bundle');
    const deleted = [];
    for (const instance of stored.reverse())
        deleted.push(await deleteStoredInstance(cluster, instance, options, deadline));
    return deleted;
}

;// CONCATENATED MODULE: ./src/kube/removed-instances.ts






const removed_instances_key = (instance) => `${instance.namespace}/${instance.name}`;
function isForbidden(error) {
    return error instanceof errors_KubeApiError && error.status === 403;
}
/** Namespaces listed at once when the cluster's Secrets cannot be listed in one request. */
const NAMESPACE_CONCURRENCY = 8;
async function namespacesToList(cluster, listed) {
    const own = [...new Set(listed.map((instance) => instance.namespace))];
    try {
        const all = await cluster.list('v1', 'Namespace', '');
        return { namespaces: [...new Set([...own, ...all.map((namespace) => namespace.metadata.name)])], scope: 'namespaces' };
    }
    catch (error) {
        if (!isForbidden(error))
            throw error;
        return { namespaces: own, scope: 'bundle-namespaces' };
    }
}
async function listStored(cluster, bundle, listed) {
    try {
        return { stored: await listInstances(cluster, '', bundle), scope: 'cluster', unchecked: [] };
    }
    catch (error) {
        if (!isForbidden(error))
            throw error;
    }
    const { namespaces, scope } = await namespacesToList(cluster, listed);
    const outcomes = await settleBounded(namespaces, NAMESPACE_CONCURRENCY, (namespace) => listInstances(cluster, namespace, bundle));
    const stored = [];
    const unchecked = [];
    outcomes.forEach((outcome, index) => {
        if (outcome.status === 'fulfilled')
            stored.push(...outcome.value);
        else if (isForbidden(outcome.reason))
            unchecked.push(namespaces[index]);
        else
            throw outcome.reason;
    });
    const created = (record) => record.instance.creationTimestamp ?? '';
    stored.sort((a, b) => (created(a) < created(b) ? -1 : created(a) > created(b) ? 1 : 0));
    return { stored, scope, unchecked };
}
/** The stored instances of `bundle` on the cluster that `listed` (the bundle's instances here) lacks. */
async function findRemovedInstances(cluster, bundle, listed) {
    const { stored, scope, unchecked } = await listStored(cluster, bundle, listed);
    const keep = new Set(listed.map(removed_instances_key));
    const removed = stored.filter((record) => record.instance.labels?.[bundleNameLabel] === bundle && !keep.has(removed_instances_key(record.instance)));
    return { removed: removed.reverse(), scope, unchecked };
}
/**
 * What deleting a removed instance would do, nothing written: `deleted` for each object
 * that would go, `skipped` for one kept by its labels or annotations, or that one of the
 * bundle's instances builds (it takes the object over before removed instances go).
 */
async function diffRemovedInstance(cluster, stored, builtIds) {
    const refs = inventoryObjects(stored);
    const taken = new Set(refs.filter((ref) => builtIds.has(inventoryEntryId(ref))).map(inventoryEntryId));
    const changes = await deleteObjects(cluster, refs.filter((ref) => !taken.has(inventoryEntryId(ref))), stored.instance, { dryRun: true });
    const kept = refs
        .filter((ref) => taken.has(inventoryEntryId(ref)))
        .map((ref) => ({ kind: ref.kind, apiVersion: ref.apiVersion, namespace: ref.namespace, name: ref.name, action: 'skipped', diff: '' }));
    return [...changes, ...kept];
}
/** Deletes a removed instance as `bundle delete` does; throws an InstanceStepError naming the step. */
function deleteRemovedInstance(cluster, stored, options, deadline) {
    return deleteStoredInstance(cluster, stored, options, deadline);
}
/** How many objects a removed instance's changes delete (or would). */
function deletedCount(changes) {
    return changes.filter((change) => change.action === 'deleted').length;
}

;// CONCATENATED MODULE: ./src/fleet/removed-instances.ts
// The fleet's side of instances removed from the bundle: after the bundle's instances are
// diffed (or applied) on a cluster, the instances it stores under the bundle's label but no
// longer lists become ChangeSet instances marked `removed`, with what deleting them would
// do (plan) or did (rollout). Only with `prune` and `pruneRemovedInstances`.




/** The module of a stored instance, as the ChangeSet names modules. */
function storedModule(stored) {
    const { module } = stored.instance;
    return { url: module.repository, version: module.version, digest: module.digest };
}
function removedEntry(stored, changes) {
    return { name: stored.instance.name, namespace: stored.instance.namespace, module: storedModule(stored), changes, removed: true };
}
function objects(count) {
    return count === 1 ? '1 object' : `${count} objects`;
}
async function scan(kube, bundle, builds, log) {
    let found;
    try {
        found = await findRemovedInstances(kube, bundle, builds);
    }
    catch (error) {
        throw new ClusterStepError('prune', new Error(`listing the instances of bundle ${bundle}: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
    }
    if (found.scope === 'bundle-namespaces') {
        log('cannot list Secrets or Namespaces across the cluster: instances removed from the bundle are looked for in its own namespaces only');
    }
    if (found.unchecked.length > 0) {
        const shown = found.unchecked.slice(0, 5).join(', ') + (found.unchecked.length > 5 ? `, and ${found.unchecked.length - 5} more` : '');
        log(`cannot list Secrets in ${found.unchecked.length === 1 ? 'namespace' : `${found.unchecked.length} namespaces`} ${shown}: instances removed from the bundle there are not checked`);
    }
    return found;
}
/** Inventory ids of every object the bundle's instances build on this cluster. */
async function builtIds(kube, builds) {
    const objects = builds.flatMap((build) => build.built.sets.flatMap((set) => set.objects));
    const refs = await Promise.all(objects.map((object) => kube.scopedRef(object)));
    return new Set(refs.map(inventoryEntryId));
}
/** The removed instances with what deleting them would do; nothing is written. */
async function removedInstancesPlan(kube, bundle, builds, log) {
    const { removed } = await scan(kube, bundle, builds, log);
    if (removed.length === 0)
        return [];
    const built = await builtIds(kube, builds);
    const entries = [];
    for (const stored of removed) {
        let changes;
        try {
            changes = await diffRemovedInstance(kube, stored, built);
        }
        catch (error) {
            const object = error.object;
            throw new ClusterStepError('prune', error, stored.instance.name, typeof object === 'string' ? object : undefined);
        }
        log(`i:${stored.instance.name} > instance removed from the bundle: ${objects(deletedCount(changes))} would be deleted`);
        entries.push(removedEntry(stored, changes));
    }
    return entries;
}
/**
 * Deletes the removed instances, newest first, as `bundle delete` does; each one is added to
 * `into` as it goes (with what was deleted before a failure), and the first failure stops.
 */
async function removedInstancesApply(kube, bundle, builds, options, into) {
    const { removed } = await scan(kube, bundle, builds, options.log);
    for (const stored of removed) {
        const name = stored.instance.name;
        const log = (text) => options.log(`i:${name} > ${text}`);
        log('instance removed from the bundle: deleting it');
        try {
            const deleted = await deleteRemovedInstance(kube, stored, { wait: options.wait, timeoutMs: options.timeoutMs, log }, options.deadline);
            log(`instance removed from the bundle: ${objects(deletedCount(deleted.changes))} deleted`);
            into.push(removedEntry(stored, deleted.changes));
        }
        catch (error) {
            if (error instanceof InstanceStepError) {
                into.push(removedEntry(stored, error.changes));
                throw new ClusterStepError(error.step, error, name, error.object);
            }
            throw new ClusterStepError('prune', error, name);
        }
    }
}

;// CONCATENATED MODULE: ./src/kube/kubeconfig.ts
// Kubeconfig: parsed from strings (YAML, or base64 of it), several documents merged as
// kubectl merges files (the first definition of a name wins), contexts looked up by name.
// Credentials are registered as secrets the moment they are read.




class KubeconfigError extends Error {
    name = 'KubeconfigError';
}
/** Asked-for context absent; the message lists the contexts that exist (names only). */
class KubeContextNotFoundError extends KubeconfigError {
    context;
    available;
    name = 'KubeContextNotFoundError';
    constructor(context, available) {
        super(`kube context ${JSON.stringify(context)} not found in kubeconfig; ` +
            (available.length ? `contexts: ${available.join(', ')}` : 'the kubeconfig has no contexts'));
        this.context = context;
        this.available = available;
    }
}
/** Kubeconfig text or base64 of it: base64 has no `:` and only base64 characters. */
function decodeKubeconfigText(text) {
    const compact = text.replace(/\s+/g, '');
    if (compact && !text.includes(':') && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) {
        return Buffer.from(compact, 'base64').toString('utf8');
    }
    return text;
}
function kubeconfig_str(value) {
    return typeof value === 'string' && value !== '' ? value : undefined;
}
function bool(value) {
    return value === true || value === 'true';
}
function namedEntries(list, field, where) {
    if (list === undefined || list === null)
        return [];
    if (!Array.isArray(list))
        throw new KubeconfigError(`${where}: ${field}s is not a list`);
    return list.flatMap((item, i) => {
        if (!isRecord(item) || typeof item.name !== 'string') {
            throw new KubeconfigError(`${where}: ${field}s[${i}] has no name`);
        }
        const body = item[field];
        return [[item.name, isRecord(body) ? body : {}]];
    });
}
/**
 * The plugin's command as kubectl resolves it: a bare name is looked up on PATH; a relative
 * path with a separator is resolved against the kubeconfig file's folder, never against the
 * working directory (on a pull request the workspace holds the author's scripts). A
 * kubeconfig given inline (an action input) has no folder, so such a path is refused.
 */
function execCommand(command, fileDir, where) {
    if ((0,external_node_path_namespaceObject.isAbsolute)(command) || !/[\\/]/.test(command))
        return command;
    if (fileDir !== undefined)
        return (0,external_node_path_namespaceObject.resolve)(fileDir, command);
    throw new KubeconfigError(`${where}: exec command ${JSON.stringify(command)} is a relative path, which kubectl resolves against the kubeconfig file's folder; this kubeconfig was given inline, so give an absolute path or a command on PATH`);
}
function parseExec(exec, where, fileDir, secrets) {
    const rawCommand = kubeconfig_str(exec.command);
    if (!rawCommand)
        throw new KubeconfigError(`${where}: exec has no command`);
    const command = execCommand(rawCommand, fileDir, where);
    const env = Array.isArray(exec.env)
        ? exec.env.filter(isRecord).map((entry) => ({ name: String(entry.name ?? ''), value: String(entry.value ?? '') }))
        : [];
    for (const entry of env)
        secrets.register(entry.value);
    return {
        command,
        args: Array.isArray(exec.args) ? exec.args.map(String) : [],
        env,
        apiVersion: kubeconfig_str(exec.apiVersion) ?? 'client.authentication.k8s.io/v1',
        installHint: kubeconfig_str(exec.installHint),
        provideClusterInfo: bool(exec.provideClusterInfo),
        workingDirectory: fileDir ?? (0,external_node_os_namespaceObject.tmpdir)(),
    };
}
function parseUser(name, user, baseDir, fileDir, where, secrets) {
    const parsed = {
        clientCertificate: kubeconfig_str(user['client-certificate']),
        clientCertificateData: kubeconfig_str(user['client-certificate-data']),
        clientKey: kubeconfig_str(user['client-key']),
        clientKeyData: kubeconfig_str(user['client-key-data']),
        token: kubeconfig_str(user.token),
        tokenFile: kubeconfig_str(user.tokenFile),
        username: kubeconfig_str(user.username),
        password: kubeconfig_str(user.password),
        impersonate: kubeconfig_str(user.as),
        impersonateGroups: Array.isArray(user['as-groups']) ? user['as-groups'].map(String) : [],
        impersonateUid: kubeconfig_str(user['as-uid']),
        baseDir,
    };
    secrets.register(parsed.token);
    secrets.register(parsed.password);
    if (parsed.clientKeyData) {
        secrets.register(parsed.clientKeyData);
        secrets.register(Buffer.from(parsed.clientKeyData, 'base64').toString('utf8'));
    }
    if (isRecord(user.exec))
        parsed.exec = parseExec(user.exec, `${where}: user ${JSON.stringify(name)}`, fileDir, secrets);
    if (isRecord(user['auth-provider']))
        parsed.authProvider = kubeconfig_str(user['auth-provider'].name) ?? 'unnamed';
    return parsed;
}
function parseCluster(cluster, baseDir) {
    return {
        server: kubeconfig_str(cluster.server) ?? '',
        certificateAuthority: kubeconfig_str(cluster['certificate-authority']),
        certificateAuthorityData: kubeconfig_str(cluster['certificate-authority-data']),
        insecureSkipTlsVerify: bool(cluster['insecure-skip-tls-verify']),
        tlsServerName: kubeconfig_str(cluster['tls-server-name']),
        proxyUrl: kubeconfig_str(cluster['proxy-url']),
        baseDir,
    };
}
/**
 * The parser's reason for a YAML error, with its line and column: the first line of its
 * message without the trailing colon that introduces the excerpt of the file (which is left
 * out: a kubeconfig line may hold a credential).
 */
function yamlReason(error) {
    const reason = (error.message.split('\n')[0] ?? '').replace(/:\s*$/, '').trim();
    if (reason)
        return reason;
    const at = error.linePos?.[0];
    return `${error.code ?? 'syntax error'}${at ? ` at line ${at.line}, column ${at.col}` : ''}`;
}
/**
 * Parses and merges kubeconfig texts. Within the sources, and within the YAML documents
 * of one source, the first definition of a cluster, user or context name wins, and the
 * first non-empty `current-context` wins (kubectl's merge of KUBECONFIG files).
 */
function loadKubeconfig(sources, secrets) {
    const config = { clusters: new Map(), users: new Map(), contexts: new Map() };
    sources.forEach((source, index) => {
        const { text, path } = typeof source === 'string' ? { text: source, path: undefined } : source;
        const where = path ?? `kubeconfig #${index + 1}`;
        const fileDir = path ? (0,external_node_path_namespaceObject.dirname)((0,external_node_path_namespaceObject.resolve)(path)) : undefined;
        const baseDir = fileDir ?? process.cwd();
        // The whole text is a secret too, as one document (its lines, `apiVersion: v1`, are not):
        // no value that holds it is offered to runtime attributes (SecretRegistry.secretIn).
        const decoded = decodeKubeconfigText(text);
        secrets.registerDocument(text);
        if (decoded !== text)
            secrets.registerDocument(decoded);
        const documents = (0,dist/* parseAllDocuments */.hR)(decoded);
        const list = Array.isArray(documents) ? documents : [documents];
        for (const document of list) {
            if (document.errors.length > 0) {
                throw new KubeconfigError(`${where} is not valid YAML: ${yamlReason(document.errors[0])}`);
            }
            const raw = document.toJS();
            if (raw === null || raw === undefined)
                continue;
            if (!isRecord(raw))
                throw new KubeconfigError(`${where} is not a kubeconfig (expected a mapping)`);
            if (!config.currentContext && kubeconfig_str(raw['current-context']))
                config.currentContext = kubeconfig_str(raw['current-context']);
            for (const [name, body] of namedEntries(raw.clusters, 'cluster', where)) {
                if (!config.clusters.has(name))
                    config.clusters.set(name, parseCluster(body, baseDir));
            }
            for (const [name, body] of namedEntries(raw.users, 'user', where)) {
                if (!config.users.has(name))
                    config.users.set(name, parseUser(name, body, baseDir, fileDir, where, secrets));
            }
            for (const [name, body] of namedEntries(raw.contexts, 'context', where)) {
                if (!config.contexts.has(name)) {
                    config.contexts.set(name, { cluster: String(body.cluster ?? ''), user: String(body.user ?? ''), namespace: kubeconfig_str(body.namespace) });
                }
            }
        }
    });
    return config;
}
/** The context by name, or the current context when no name is given. */
function resolveContext(config, name) {
    const contextName = name || config.currentContext;
    if (!contextName) {
        throw new KubeconfigError(`kubeconfig has no current-context and no context was asked for; contexts: ${[...config.contexts.keys()].join(', ') || 'none'}`);
    }
    const context = config.contexts.get(contextName);
    if (!context)
        throw new KubeContextNotFoundError(contextName, [...config.contexts.keys()]);
    const cluster = config.clusters.get(context.cluster);
    if (!cluster)
        throw new KubeconfigError(`kube context ${JSON.stringify(contextName)} refers to cluster ${JSON.stringify(context.cluster)}, which is not in the kubeconfig`);
    if (!cluster.server)
        throw new KubeconfigError(`cluster ${JSON.stringify(context.cluster)} of kube context ${JSON.stringify(contextName)} has no server`);
    // A context without a user connects anonymously, as kubectl does.
    const user = context.user ? config.users.get(context.user) : { impersonateGroups: [], baseDir: cluster.baseDir };
    if (!user)
        throw new KubeconfigError(`kube context ${JSON.stringify(contextName)} refers to user ${JSON.stringify(context.user)}, which is not in the kubeconfig`);
    return { contextName, clusterName: context.cluster, userName: context.user, cluster, user, namespace: context.namespace };
}
/** A file path of a kubeconfig entry, resolved against the file that declared it. */
function resolveEntryPath(baseDir, path) {
    return (0,external_node_path_namespaceObject.isAbsolute)(path) ? path : (0,external_node_path_namespaceObject.resolve)(baseDir, path);
}

;// CONCATENATED MODULE: ./src/kube/exec-credential.ts
// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1): the plugin is run
// with KUBERNETES_EXEC_INFO, its ExecCredential output is cached until it expires. Env
// values and outputs are secrets.



class ExecCredentialError extends Error {
    name = 'ExecCredentialError';
}
const supportedVersions = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];
function execInfo(config, cluster) {
    const spec = { interactive: false };
    if (config.provideClusterInfo && cluster) {
        spec.cluster = {
            server: cluster.server,
            ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
            ...(cluster.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
            ...(cluster.certificateAuthorityData ? { 'certificate-authority-data': cluster.certificateAuthorityData } : {}),
            ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
        };
    }
    return JSON.stringify({ apiVersion: config.apiVersion, kind: 'ExecCredential', spec });
}
function run(config, options) {
    const { subject, timeoutMs, secrets } = options;
    // The plugin gets what a plugin needs (PATH, HOME, cloud credentials, its own env entries),
    // never the job's own credentials (the action's inputs, the runner's tokens), and runs
    // outside the workspace, which on a pull request holds the author's files.
    const env = { ...withoutJobCredentials(process.env), KUBERNETES_EXEC_INFO: execInfo(config, options.cluster) };
    for (const entry of config.env)
        env[entry.name] = entry.value;
    return new Promise((resolvePromise, reject) => {
        const child = (0,external_node_child_process_namespaceObject.spawn)(config.command, config.args, { env, cwd: config.workingDirectory, stdio: ['ignore', 'pipe', 'pipe'] });
        const stdout = [];
        const stderr = [];
        child.stdout.on('data', (chunk) => stdout.push(chunk));
        child.stderr.on('data', (chunk) => stderr.push(chunk));
        const timer = setTimeout(() => {
            child.kill('SIGKILL');
            reject(new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} did not answer within ${timeoutMs} ms`));
        }, timeoutMs);
        child.on('error', (error) => {
            clearTimeout(timer);
            if (error.code === 'ENOENT') {
                const hint = config.installHint ? `; ${config.installHint.trim()}` : '';
                reject(new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} was not found (is it installed and on PATH?)${hint}`));
            }
            else {
                reject(new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} could not start: ${error.message}`));
            }
        });
        child.on('close', (code, signal) => {
            clearTimeout(timer);
            const out = Buffer.concat(stdout).toString('utf8');
            secrets.register(out, true);
            if (code !== 0) {
                const err = secrets.redact(Buffer.concat(stderr).toString('utf8').trim()).slice(0, 500);
                const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
                reject(new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} ${how}${err ? `: ${err}` : ''}`));
                return;
            }
            resolvePromise(out);
        });
    });
}
/** Reads an ExecCredential document; every credential in it is registered first. */
function parseExecCredential(output, config, subject, secrets) {
    let parsed;
    try {
        parsed = JSON.parse(output);
    }
    catch {
        throw new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} did not print an ExecCredential JSON document`);
    }
    if (!isRecord(parsed) || parsed.kind !== 'ExecCredential') {
        throw new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} printed something that is not an ExecCredential`);
    }
    if (parsed.apiVersion !== config.apiVersion) {
        throw new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} answered with apiVersion ${JSON.stringify(parsed.apiVersion)}, expected ${JSON.stringify(config.apiVersion)}`);
    }
    const status = isRecord(parsed.status) ? parsed.status : {};
    const credential = {
        token: typeof status.token === 'string' && status.token ? status.token : undefined,
        clientCertificateData: typeof status.clientCertificateData === 'string' ? status.clientCertificateData : undefined,
        clientKeyData: typeof status.clientKeyData === 'string' ? status.clientKeyData : undefined,
    };
    secrets.register(credential.token);
    secrets.register(credential.clientKeyData);
    if (typeof status.expirationTimestamp === 'string') {
        const at = Date.parse(status.expirationTimestamp);
        if (!Number.isNaN(at))
            credential.expiresAt = at;
    }
    if (!credential.token && !(credential.clientCertificateData && credential.clientKeyData)) {
        throw new ExecCredentialError(`exec credential plugin ${JSON.stringify(config.command)} of ${subject} returned neither a token nor a client certificate and key`);
    }
    return credential;
}
/** Runs a plugin when needed and keeps its credential until it expires or is refused. */
class ExecCredentialPlugin {
    config;
    options;
    cached;
    pending;
    constructor(config, options) {
        this.config = config;
        this.options = options;
        if (!supportedVersions.includes(config.apiVersion)) {
            throw new ExecCredentialError(`exec credential plugin of ${options.subject} uses apiVersion ${JSON.stringify(config.apiVersion)}; supported: ${supportedVersions.join(', ')}`);
        }
    }
    async credential() {
        // Renew ten seconds before the expiry, so that a request does not carry a dying token.
        if (this.cached && (this.cached.expiresAt === undefined || this.cached.expiresAt - 10_000 > Date.now()))
            return this.cached;
        this.pending ??= run(this.config, this.options)
            .then((output) => parseExecCredential(output, this.config, this.options.subject, this.options.secrets))
            .finally(() => {
            this.pending = undefined;
        });
        this.cached = await this.pending;
        return this.cached;
    }
    /** Forgets the cached credential (the server refused it). */
    invalidate() {
        this.cached = undefined;
    }
}

;// CONCATENATED MODULE: external "node:net"
const external_node_net_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:net");
;// CONCATENATED MODULE: ./src/net/proxy-environment.ts
// Which proxy a request goes through when the caller names none: HTTPS_PROXY / HTTP_PROXY
// and NO_PROXY (upper case first, then lower case), read exactly as Go's
// golang.org/x/net/http/httpproxy does for kubectl, Timoni and every Go client:
//
//   - https:// targets use HTTPS_PROXY, http:// targets HTTP_PROXY (no fallback between them);
//   - a value without a usable scheme (`proxy.corp:3128`) means `http://proxy.corp:3128`;
//     one that cannot be parsed at all is ignored (Go drops it and connects directly);
//   - `localhost` and loopback IPs (127.0.0.0/8, ::1) are never proxied: Go hard-codes it
//     before NO_PROXY is read (`*.localhost` and other names are not special);
//   - NO_PROXY is a comma-separated list, case-insensitive: `*` (no proxy at all), an IP
//     (`10.1.2.3`, `[::1]:8443`), a CIDR (`10.0.0.0/8`, no port), or a domain, which
//     matches itself and its subdomains (`example.com`), or only its subdomains with a
//     leading dot (`.example.com`, `*.example.com`); IPs and domains take an optional port,
//     compared with the target's port (its scheme's default when it has none).
//
// Pure: the environment is a parameter.


/** The first non-empty of NAME and name, as Go's getEnvAny. */
function envValue(env, name) {
    return env[name] || env[name.toLowerCase()] || undefined;
}
const defaultPorts = { 'http:': '80', 'https:': '443', 'socks5:': '1080' };
/** The port a URL connects to: its own, or its scheme's default. */
function effectivePort(url) {
    return url.port || defaultPorts[url.protocol] || '';
}
const loopback = new external_node_net_namespaceObject.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
function ipFamily(address) {
    const family = (0,external_node_net_namespaceObject.isIP)(address);
    return family === 4 ? 'ipv4' : family === 6 ? 'ipv6' : undefined;
}
/** `host`, `host:port`, `[v6]:port` -> host and port; a bare IPv6 address has no port. */
function splitHostPort(entry) {
    const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(entry);
    if (bracketed)
        return { host: bracketed[1], port: bracketed[2] ?? '' };
    if ((0,external_node_net_namespaceObject.isIP)(entry) === 6)
        return { host: entry, port: '' };
    const withPort = /^(.*):(\d*)$/.exec(entry);
    return withPort ? { host: withPort[1], port: withPort[2] } : { host: entry, port: '' };
}
/** True when NO_PROXY (or the loopback rule) sends requests to `target` directly. */
function bypassesProxy(target, noProxy) {
    const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const port = effectivePort(target);
    const family = ipFamily(host);
    if (host === 'localhost' || (family && loopback.check(host, family)))
        return true;
    for (const raw of (noProxy ?? '').split(',')) {
        const entry = raw.trim().toLowerCase();
        if (!entry)
            continue;
        if (entry === '*')
            return true;
        if (entry.includes('/')) {
            const [network = '', bits = ''] = entry.split('/');
            const networkFamily = ipFamily(network);
            if (networkFamily && /^\d+$/.test(bits) && Number(bits) <= (networkFamily === 'ipv4' ? 32 : 128)) {
                // A CIDR holds no port; an IPv4 target is compared with an IPv4 network only.
                if (family !== networkFamily)
                    continue;
                const list = new external_node_net_namespaceObject.BlockList();
                list.addSubnet(network, Number(bits), networkFamily);
                if (list.check(host, family))
                    return true;
                continue;
            }
        }
        const { host: entryHost, port: entryPort } = splitHostPort(entry);
        if (!entryHost)
            continue;
        if (entryPort && entryPort !== port)
            continue;
        const entryFamily = ipFamily(entryHost);
        if (entryFamily) {
            if (family && sameAddress(host, family, entryHost, entryFamily))
                return true;
            continue;
        }
        // `*.example.com` is `.example.com`: subdomains only; `example.com` also matches itself.
        const dotted = entryHost.startsWith('*.') ? entryHost.slice(1) : entryHost;
        const suffix = (0,external_node_url_namespaceObject.domainToASCII)(dotted.startsWith('.') ? dotted.slice(1) : dotted) || dotted.replace(/^\./, '');
        if (host.endsWith(`.${suffix}`) || (!dotted.startsWith('.') && host === suffix))
            return true;
    }
    return false;
}
function sameAddress(host, family, entry, entryFamily) {
    const list = new external_node_net_namespaceObject.BlockList();
    list.addAddress(entry, entryFamily);
    return list.check(host, family);
}
/**
 * A proxy setting as Go parses it: a URL with scheme http, https or socks5, else the value
 * read as `http://value`; undefined when neither parses (Go then connects directly).
 */
function parseProxyUrl(value) {
    let parsed;
    try {
        parsed = new URL(value);
    }
    catch {
        parsed = undefined;
    }
    if (parsed && parsed.host && ['http:', 'https:', 'socks5:'].includes(parsed.protocol))
        return parsed;
    try {
        return new URL(`http://${value}`);
    }
    catch {
        return parsed;
    }
}
/** The environment variable that names the proxy of a target (for messages). */
function proxyVariable(target) {
    return target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
}
/** The proxy the environment asks for to reach `target`; undefined for a direct connection. */
function proxyFromEnvironment(target, env = process.env) {
    if (target.protocol !== 'https:' && target.protocol !== 'http:')
        return undefined;
    const value = envValue(env, proxyVariable(target));
    if (!value || bypassesProxy(target, envValue(env, 'NO_PROXY')))
        return undefined;
    return parseProxyUrl(value);
}

;// CONCATENATED MODULE: external "node:http"
const external_node_http_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:http");
var external_node_http_default = /*#__PURE__*/__nccwpck_require__.n(external_node_http_namespaceObject);
;// CONCATENATED MODULE: external "node:https"
const external_node_https_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:https");
var external_node_https_default = /*#__PURE__*/__nccwpck_require__.n(external_node_https_namespaceObject);
;// CONCATENATED MODULE: external "node:tls"
const external_node_tls_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:tls");
;// CONCATENATED MODULE: ./src/net/proxy-transport.ts
// Sends HTTP requests directly or through an HTTP proxy, for the kube and the OCI clients:
//
//   - an https:// target goes through a CONNECT tunnel: TLS runs end to end between us and
//     the target inside it, the proxy sees only `host:port`;
//   - an http:// target is sent to the proxy as an absolute-form request
//     (`GET http://host:port/path HTTP/1.1`), as Go's net/http does;
//   - the proxy itself is spoken to over http:// or https:// (its certificate checked
//     against the system CAs); SOCKS proxies are not supported.
//
// Credentials in the proxy URL (`http://user:pass@proxy:3128`) go in Proxy-Authorization and
// never in a message: errors name the proxy's host:port only.



/** `proxy host:port`, for messages (URL.host carries no credentials). */
function describeProxy(proxy) {
    return `proxy ${proxy.host}`;
}
/** Proxies this stack can use: http:// and https:// (CONNECT and forward). */
function isSupportedProxy(proxy) {
    return proxy.protocol === 'http:' || proxy.protocol === 'https:';
}
function proxyPort(proxy) {
    return Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
}
/** The Proxy-Authorization header of a proxy URL with credentials; empty without. */
function proxyAuthorization(proxy) {
    if (!proxy.username && !proxy.password)
        return {};
    const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
    return { 'Proxy-Authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}
/** A failure of the proxy itself (CONNECT refused, proxy unreachable): `code` is kept from the cause, or EPROXY. */
function proxyFailure(message, code) {
    const error = new Error(message);
    error.code = code ?? 'EPROXY';
    return error;
}
/** An https agent whose connections are CONNECT tunnels through `proxy`, TLS to the target inside. */
class ConnectProxyAgent extends (external_node_https_default()).Agent {
    proxy;
    constructor(proxy, options) {
        super(options);
        this.proxy = proxy;
    }
    // Node calls createConnection with a callback and waits for it when nothing is returned.
    createConnection(options, callback) {
        const { proxy } = this;
        const target = `${options.host ?? 'localhost'}:${options.port ?? 443}`;
        const send = proxy.protocol === 'https:' ? (external_node_https_default()).request : (external_node_http_default()).request;
        const connectRequest = send({
            host: proxy.hostname,
            port: proxyPort(proxy),
            method: 'CONNECT',
            path: target,
            headers: { Host: target, ...proxyAuthorization(proxy) },
            agent: false,
        });
        const fail = (error) => callback?.(error, undefined);
        connectRequest.once('connect', (response, socket) => {
            if (response.statusCode !== 200) {
                socket.destroy();
                fail(proxyFailure(`${describeProxy(proxy)} refused CONNECT ${target}: HTTP ${response.statusCode}`, 'EPROXY'));
                return;
            }
            callback?.(null, (0,external_node_tls_namespaceObject.connect)({ ...options, socket }));
        });
        connectRequest.once('error', (error) => fail(proxyFailure(`${describeProxy(proxy)}: ${error.message}`, error.code)));
        connectRequest.end();
        return undefined;
    }
}
/**
 * Keep-alive agents for the requests of one client, one per route (direct http, direct
 * https, each proxy), made on first use. `options` hold the keep-alive settings and the TLS
 * material for https targets (CA, client certificate); a proxy spoken to over https:// is
 * checked against the system CAs, not against the target's.
 */
class ProxyTransport {
    options;
    #agents = new Map();
    constructor(options) {
        this.options = options;
    }
    #agent(key, make) {
        let agent = this.#agents.get(key);
        if (!agent) {
            agent = make();
            this.#agents.set(key, agent);
        }
        return agent;
    }
    /**
     * Starts a request for `target`, through `proxy` when given (which must be supported:
     * isSupportedProxy). Call `end()` on what it returns, as with http.request.
     */
    request(target, proxy, request, onResponse) {
        const { keepAlive, maxSockets } = this.options;
        const common = { method: request.method ?? 'GET', headers: request.headers, signal: request.signal };
        if (proxy && !isSupportedProxy(proxy)) {
            throw proxyFailure(`${describeProxy(proxy)}: scheme ${proxy.protocol} is not supported (only http:// and https:// proxies)`, 'EPROXYSCHEME');
        }
        if (target.protocol === 'https:') {
            const agent = proxy
                ? this.#agent(`connect ${proxy.href}`, () => new ConnectProxyAgent(proxy, this.options))
                : this.#agent('https', () => new (external_node_https_default()).Agent(this.options));
            return external_node_https_default().request(target, { ...common, agent, servername: request.servername }, onResponse);
        }
        if (!proxy) {
            const agent = this.#agent('http', () => new (external_node_http_default()).Agent({ keepAlive, maxSockets }));
            return external_node_http_default().request(target, { ...common, agent }, onResponse);
        }
        // Plain HTTP through the proxy: the whole URL as the request target, Host the target's.
        const overTls = proxy.protocol === 'https:';
        const agent = this.#agent(`forward ${proxy.href}`, () => (overTls ? new (external_node_https_default()).Agent({ keepAlive, maxSockets }) : new (external_node_http_default()).Agent({ keepAlive, maxSockets })));
        const forwarded = new URL(target.href);
        forwarded.hash = '';
        const send = overTls ? (external_node_https_default()).request : (external_node_http_default()).request;
        const headers = { ...request.headers, Host: target.host, ...proxyAuthorization(proxy) };
        return send({ ...common, host: proxy.hostname, port: proxyPort(proxy), path: forwarded.href, headers, agent }, onResponse);
    }
    /** Closes every kept-alive connection. */
    destroy() {
        for (const agent of this.#agents.values())
            agent.destroy();
        this.#agents.clear();
    }
}

;// CONCATENATED MODULE: ./src/kube/connection.ts
// What it takes to talk to the API server of one kube context: server URL, TLS material,
// proxy, and the credentials put on each request (client certificate, bearer token,
// token file, basic auth or an exec plugin).





function readMaterial(data, file, baseDir, what, subject) {
    if (data)
        return Buffer.from(data, 'base64');
    if (!file)
        return undefined;
    const path = resolveEntryPath(baseDir, file);
    try {
        return (0,external_node_fs_.readFileSync)(path);
    }
    catch (error) {
        throw new KubeconfigError(`${subject}: cannot read ${what} ${path}: ${error.code ?? String(error)}`);
    }
}
const tokenFileTtlMs = 60_000;
function authFor(user, subject, options, cluster) {
    const { secrets } = options;
    const headers = {};
    if (user.impersonate)
        headers['Impersonate-User'] = user.impersonate;
    if (user.impersonateUid)
        headers['Impersonate-Uid'] = user.impersonateUid;
    // One header line per group: the API server takes each line as one group name and does
    // not split a comma-joined value (`dev, ops` would be a single group).
    if (user.impersonateGroups.length)
        headers['Impersonate-Group'] = [...user.impersonateGroups];
    if (user.authProvider) {
        throw new KubeconfigError(`${subject}: auth-provider ${JSON.stringify(user.authProvider)} is not supported; use an exec credential plugin`);
    }
    const cert = readMaterial(user.clientCertificateData, user.clientCertificate, user.baseDir, 'client certificate', subject);
    const key = readMaterial(user.clientKeyData, user.clientKey, user.baseDir, 'client key', subject);
    secrets.register(key);
    if (!!cert !== !!key)
        throw new KubeconfigError(`${subject}: a client certificate needs both a certificate and a key`);
    const tls = cert && key ? { cert, key } : {};
    if (user.token) {
        const value = { headers: { ...headers, Authorization: `Bearer ${user.token}` }, ...tls };
        return { auth: async () => value, invalidate: () => false };
    }
    if (user.tokenFile) {
        const path = resolveEntryPath(user.baseDir, user.tokenFile);
        let cached;
        const read = () => {
            if (cached && Date.now() - cached.readAt < tokenFileTtlMs)
                return cached.token;
            let token;
            try {
                token = (0,external_node_fs_.readFileSync)(path, 'utf8').trim();
            }
            catch (error) {
                throw new KubeconfigError(`${subject}: cannot read tokenFile ${path}: ${error.code ?? String(error)}`);
            }
            secrets.register(token);
            cached = { token, readAt: Date.now() };
            return token;
        };
        return {
            auth: async () => ({ headers: { ...headers, Authorization: `Bearer ${read()}` }, ...tls }),
            invalidate: () => {
                cached = undefined;
                return true;
            },
        };
    }
    if (user.username || user.password) {
        const basic = Buffer.from(`${user.username ?? ''}:${user.password ?? ''}`).toString('base64');
        secrets.register(basic);
        const value = { headers: { ...headers, Authorization: `Basic ${basic}` }, ...tls };
        return { auth: async () => value, invalidate: () => false };
    }
    if (user.exec) {
        // A relative command with a path in it is relative to the kubeconfig (as client-go has it).
        const command = user.exec.command.includes('/') ? resolveEntryPath(user.baseDir, user.exec.command) : user.exec.command;
        const plugin = new ExecCredentialPlugin({ ...user.exec, command }, { subject, timeoutMs: options.execTimeoutMs ?? 60_000, cluster, secrets });
        return {
            auth: async () => {
                const credential = await plugin.credential();
                if (credential.token)
                    return { headers: { ...headers, Authorization: `Bearer ${credential.token}` }, ...tls };
                return { headers, cert: Buffer.from(credential.clientCertificateData ?? ''), key: Buffer.from(credential.clientKeyData ?? '') };
            },
            invalidate: () => {
                plugin.invalidate();
                return true;
            },
        };
    }
    const value = { headers, ...tls };
    return { auth: async () => value, invalidate: () => false };
}
/** The connection of a kube context (default: the current context). */
function connectionFor(config, contextName, options) {
    const resolved = resolveContext(config, contextName);
    const { cluster, user } = resolved;
    const subject = `user ${JSON.stringify(resolved.userName)} of kube context ${JSON.stringify(resolved.contextName)}`;
    let server;
    try {
        server = new URL(cluster.server);
    }
    catch {
        throw new KubeconfigError(`cluster ${JSON.stringify(resolved.clusterName)} has an invalid server URL`);
    }
    if (server.protocol !== 'https:' && server.protocol !== 'http:') {
        throw new KubeconfigError(`cluster ${JSON.stringify(resolved.clusterName)}: server URL scheme ${server.protocol} is not supported`);
    }
    const ca = readMaterial(cluster.certificateAuthorityData, cluster.certificateAuthority, cluster.baseDir, 'certificate authority', `cluster ${JSON.stringify(resolved.clusterName)}`);
    if (ca && cluster.insecureSkipTlsVerify) {
        throw new KubeconfigError(`cluster ${JSON.stringify(resolved.clusterName)}: a certificate authority together with insecure-skip-tls-verify is not allowed`);
    }
    let proxyUrl = cluster.proxyUrl ? undefined : proxyFromEnvironment(server, options.env ?? process.env);
    if (cluster.proxyUrl) {
        try {
            proxyUrl = new URL(cluster.proxyUrl);
        }
        catch {
            throw new KubeconfigError(`cluster ${JSON.stringify(resolved.clusterName)} has an invalid proxy-url`);
        }
    }
    if (proxyUrl) {
        if (!isSupportedProxy(proxyUrl)) {
            const source = cluster.proxyUrl ? 'proxy-url' : 'HTTPS_PROXY';
            throw new KubeconfigError(`cluster ${JSON.stringify(resolved.clusterName)}: ${source} scheme ${proxyUrl.protocol} is not supported (only http:// and https:// CONNECT proxies)`);
        }
        options.secrets.register(decodeURIComponent(proxyUrl.password));
    }
    const { auth, invalidate } = authFor(user, subject, options, cluster);
    return {
        name: options.name ?? resolved.contextName,
        contextName: resolved.contextName,
        server,
        namespace: resolved.namespace,
        ca,
        rejectUnauthorized: !cluster.insecureSkipTlsVerify,
        servername: cluster.tlsServerName,
        proxyUrl,
        auth,
        invalidate,
    };
}

;// CONCATENATED MODULE: external "node:async_hooks"
const external_node_async_hooks_namespaceObject = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:async_hooks");
;// CONCATENATED MODULE: ./src/kube/request-retry.ts
// Which failed requests to an API server are sent again, after how long, and for how long at
// most: an API server restarted (a rollout of the control plane, a crash) refuses connections
// for a few seconds, one shutting down answers 429 or 503, and none of that should fail a
// rollout. client-go does the same in spirit (rest/request.go, `WithRetry`); this is our own,
// with the rules written down:
//
// | failure                                      | retried for                                  |
// | -------------------------------------------- | -------------------------------------------- |
// | connection refused (ECONNREFUSED)            | every request: nothing reached the server    |
// | connection reset / hang-up / EPIPE           | idempotent requests only (below)             |
// | 429 Too Many Requests                        | every request: the server did not run it     |
// | 502, 503, 504                                | idempotent requests only                     |
// | 500 with Retry-After                         | idempotent requests only                     |
// | 500 without Retry-After, other 4xx/5xx       | never: the API server reports permanent      |
// |                                              | errors as 500 too (a server-side apply its   |
// |                                              | schema refuses: "failed to create typed      |
// |                                              | patch object")                               |
// | no answer within the time limit (ETIMEDOUT)  | never: it already took the whole limit       |
//
// Idempotent: a GET; a DELETE (a second one answers 404, which callers take as "gone"); a
// server-side apply (PATCH application/apply-patch+yaml: the same object applied twice is the
// same object); a merge patch (sets the fields it names to the values it holds); any dry-run
// (writes nothing). Not idempotent: a POST (a create sent twice answers AlreadyExists, or
// with generateName creates two objects), a JSON patch (its `add` and `remove` operations
// change what they act on), a PUT (sent with a resourceVersion, the second one conflicts).
// A reset on a kept-alive connection (Node's `reusedSocket`) is how such connections end
// when the server closed them meanwhile: an idempotent request is sent again at once on a
// fresh connection by the client itself, untold and not counted here.
//
// The delay doubles from 250 ms to at most 4 s, with ±20 % jitter so that the clusters of a
// fleet do not come back in step; a Retry-After the server sends is honoured when longer.
// At most 8 retries, and never past the request's own time limit (one bound per request,
// retries included) nor past the deadline of the work the request belongs to (a cluster's
// rollout timeout, through `withRequestDeadline`): a retry that would start after either is
// not made, and the last failure is reported. A server that has not answered this client
// once yet (a wrong address, a cluster that is down) gets 4 quick retries only (under 5 s:
// enough for a restart of a few seconds), so that an unreachable cluster is still reported soon.

const RETRY_FIRST_DELAY_MS = 250;
const RETRY_MAX_DELAY_MS = 4_000;
const MAX_RETRIES = 8;
/** Retries of a request to a server that has never answered this client. */
const FIRST_CONTACT_RETRIES = 4;
const resetCodes = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
/** Sending the request twice has the effect of sending it once. */
function isIdempotent(request) {
    if (request.query?.dryRun)
        return true;
    if (request.method === 'GET' || request.method === 'DELETE')
        return true;
    if (request.method === 'PATCH') {
        const type = request.contentType ?? '';
        return type.startsWith('application/apply-patch') || type.startsWith('application/merge-patch+json');
    }
    return false;
}
/** Whether this failure of this request may be retried (the table above). */
function isRetryable(request, failure) {
    if (failure.kind === 'connection') {
        if (failure.code === 'ECONNREFUSED')
            return true;
        return resetCodes.has(failure.code) && isIdempotent(request);
    }
    const { status } = failure;
    if (status === 429)
        return true;
    if (status === 502 || status === 503 || status === 504)
        return isIdempotent(request);
    if (status === 500)
        return failure.retryAfterMs !== undefined && isIdempotent(request);
    return false;
}
/** `Retry-After` in milliseconds: delay-seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(header, now = Date.now()) {
    const value = (Array.isArray(header) ? header[0] : header)?.trim();
    if (!value)
        return undefined;
    if (/^\d+$/.test(value))
        return Number(value) * 1000;
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
/** The backoff before retry `retry` (1 for the first), jitter included. */
function backoffMs(retry, random = Math.random) {
    const base = Math.min(RETRY_FIRST_DELAY_MS * 2 ** (retry - 1), RETRY_MAX_DELAY_MS);
    return Math.round(base * (0.8 + 0.4 * random()));
}
/** The delay before the next attempt, or undefined when there is none. */
function nextRetryDelay(request, failure, context) {
    if (!isRetryable(request, failure))
        return undefined;
    if (context.retry > (context.answeredBefore ? MAX_RETRIES : FIRST_CONTACT_RETRIES))
        return undefined;
    const retryAfter = failure.kind === 'status' ? (failure.retryAfterMs ?? 0) : 0;
    const delay = Math.max(backoffMs(context.retry, context.random), retryAfter);
    return context.now + delay < context.boundAt ? delay : undefined;
}
// ---- The deadline of the work a request belongs to
const workDeadline = new external_node_async_hooks_namespaceObject.AsyncLocalStorage();
/**
 * Runs `work` with a deadline (epoch ms) that the requests it makes do not retry past: a
 * cluster's rollout timeout, so that riding out a restart never outlasts it. Nested calls
 * keep the earlier deadline.
 */
function withRequestDeadline(deadline, work) {
    const outer = workDeadline.getStore();
    return workDeadline.run(outer === undefined ? deadline : Math.min(outer, deadline), work);
}
/** The deadline set by `withRequestDeadline` around the current code, if any. */
function currentRequestDeadline() {
    return workDeadline.getStore();
}

;// CONCATENATED MODULE: ./src/kube/client.ts







/** Where retries are told when the caller does not say: stderr, as the CLI's progress. */
function retryToStderr(retry) {
    process.stderr.write(`${(0,display_text/* escapeControls */.U)(retry.text)}\n`);
}
/** The texts of RFC 7234 Warning header values (`299 - "text"`), as the API server writes them. */
function parseWarnings(header) {
    const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
    const out = [];
    for (const value of values) {
        for (const match of value.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g))
            out.push(match[1].replace(/\\(.)/g, '$1'));
    }
    return out;
}
/**
 * Connections kept open to one API server. Each new one is a full TLS handshake (with a
 * client certificate, a signature on each side: about 3 ms of CPU here and as much on the
 * server), and a plan diffs up to 4 instances of a cluster at once, each with its objects'
 * dry-runs in flight together: 6 keep them busy without a handshake per request (3 x 3
 * fleet diff: 18 connections, 28 with 16; paired runs 0.95x wall locally, 0.97x with the
 * clusters 20 ms away). Requests beyond them wait for a free one (no request holds a
 * connection open: readiness is polled, never watched).
 */
const SOCKETS_PER_SERVER = 6;
class KubeClient {
    connection;
    transport;
    transportKey;
    timeoutMs;
    userAgent;
    onWarning;
    onRetry;
    /** Whether the server has answered this client once (any status): see FIRST_CONTACT_RETRIES. */
    answered = false;
    constructor(connection, options = {}) {
        this.connection = connection;
        this.timeoutMs = options.timeoutMs ?? 30_000;
        this.userAgent = options.userAgent ?? 'timoni-fleet';
        this.onWarning = options.onWarning;
        this.onRetry = options.onRetry ?? retryToStderr;
    }
    /** The cluster's name in messages. */
    get name() {
        return this.connection.name;
    }
    /** Sends a request and returns the decoded JSON answer; errors for non-2xx statuses. */
    async request(req) {
        const response = await this.send(req, true);
        if (response.body === '')
            return undefined;
        try {
            return JSON.parse(response.body);
        }
        catch {
            throw new errors_KubeApiError(this.name, response.status, 'InvalidResponse', `answer is not JSON (${response.contentType || 'no content type'})`, describe(req), req.object);
        }
    }
    /** GET that answers null for 404. */
    async getOrNull(path, object) {
        try {
            return await this.request({ method: 'GET', path, object });
        }
        catch (error) {
            if (error instanceof errors_KubeApiError && error.status === 404)
                return null;
            throw error;
        }
    }
    /** The server's `/version`. */
    version() {
        return this.request({ method: 'GET', path: '/version' });
    }
    /** Closes the idle keep-alive connections. */
    close() {
        this.transport?.destroy();
        this.transport = undefined;
        this.transportKey = undefined;
    }
    transportFor(auth) {
        // Exec plugins may hand out a new client certificate: one set of agents per certificate.
        const key = `${auth.cert?.toString('base64') ?? ''}|${auth.key ? auth.key.length : 0}`;
        if (this.transport && this.transportKey === key)
            return this.transport;
        this.transport?.destroy();
        const { connection } = this;
        this.transport = new ProxyTransport({
            keepAlive: true,
            maxSockets: SOCKETS_PER_SERVER,
            ca: connection.ca,
            cert: auth.cert,
            key: auth.key,
            rejectUnauthorized: connection.rejectUnauthorized,
            servername: connection.servername,
        });
        this.transportKey = key;
        return this.transport;
    }
    async send(req, mayRetry) {
        const { connection } = this;
        const auth = await connection.auth();
        const url = new URL(connection.server.href.replace(/\/$/, '') + req.path);
        for (const [key, value] of Object.entries(req.query ?? {}))
            if (value !== undefined)
                url.searchParams.set(key, String(value));
        const body = req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
        const headers = {
            ...auth.headers,
            Accept: req.accept ?? 'application/json',
            'User-Agent': this.userAgent,
        };
        if (body !== undefined) {
            headers['Content-Type'] = req.contentType ?? 'application/json';
            headers['Content-Length'] = String(Buffer.byteLength(body));
        }
        // One time limit per request, from before the connection to the last byte, retries
        // included; retries also stop at the deadline of the work the request belongs to.
        const timeoutMs = req.timeoutMs ?? this.timeoutMs;
        const startedAt = Date.now();
        const boundAt = startedAt + timeoutMs;
        const retryUntil = Math.min(boundAt, currentRequestDeadline() ?? Infinity);
        for (let attempt = 1;; attempt++) {
            let response;
            try {
                response = await this.exchangeOnFreshOrKeptSocket(url, req, headers, body, auth, boundAt - Date.now());
            }
            catch (error) {
                const cause = error;
                const failure = { kind: 'connection', code: cause.code ?? 'UNKNOWN' };
                const delay = nextRetryDelay(req, failure, { retry: attempt, answeredBefore: this.answered, now: Date.now(), boundAt: retryUntil });
                if (delay === undefined)
                    throw this.connectionError(cause, req, attempt, startedAt, timeoutMs);
                await this.beforeRetry(req, describeConnectionError(cause).detail, attempt, delay);
                continue;
            }
            this.answered = true;
            if (response.status === 401 && mayRetry && connection.invalidate())
                return this.send(req, false);
            for (const text of response.warnings)
                this.onWarning?.({ cluster: this.name, text, object: req.object });
            if (response.status >= 200 && response.status < 300)
                return response;
            const status = parseStatus(response.body);
            const { retryAfterMs } = response;
            const failure = { kind: 'status', status: response.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
            const delay = nextRetryDelay(req, failure, { retry: attempt, answeredBefore: true, now: Date.now(), boundAt: retryUntil });
            if (delay === undefined)
                throw new errors_KubeApiError(this.name, response.status, status.reason, status.message, describe(req), req.object, status.causes);
            const retryAfter = retryAfterMs !== undefined ? `, Retry-After ${Math.round(retryAfterMs / 1000)} s` : '';
            await this.beforeRetry(req, `HTTP ${response.status}${status.reason ? ` ${status.reason}` : ''}${retryAfter}`, attempt, delay);
        }
    }
    /** Tells of a retry (one line: cluster, object, request, reason, when) and waits for it. */
    async beforeRetry(req, reason, retry, delayMs) {
        const object = req.object ? `${formatRef(req.object)}: ` : '';
        const text = `cluster ${this.name}: ${object}${describe(req)}: ${reason}; retry ${retry} in ${formatDuration(delayMs)}`;
        this.onRetry({ cluster: this.name, request: describe(req), ...(req.object ? { object: req.object } : {}), reason, retry, delayMs, text });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    /**
     * One attempt. A kept-alive socket the server closed meanwhile fails at once: an
     * idempotent request is sent again on a fresh connection, a few times at most, within the
     * same time limit, and untold (it is how kept-alive connections end, not a fault).
     */
    async exchangeOnFreshOrKeptSocket(url, req, headers, body, auth, leftMs) {
        const until = Date.now() + leftMs;
        for (let stale = 0;; stale++) {
            try {
                return await this.exchange(url, req, headers, body, auth, Math.max(1, until - Date.now()));
            }
            catch (error) {
                if (!(error instanceof StaleSocketError))
                    throw error;
                // The server may have read the request before it closed: only an idempotent one goes again.
                if (stale >= 3 || Date.now() >= until || !isIdempotent(req))
                    throw error.cause;
            }
        }
    }
    exchange(url, req, headers, body, auth, timeoutMs) {
        const { connection } = this;
        return new Promise((resolvePromise, reject) => {
            const transport = this.transportFor(auth);
            // How far this attempt got, for the message when it runs out of time.
            let phase = 'connecting';
            let settled = false;
            const settle = (outcome) => {
                if (settled)
                    return;
                settled = true;
                clearTimeout(timer);
                outcome();
            };
            const request = transport.request(url, connection.proxyUrl, { method: req.method, headers, servername: connection.servername }, (res) => {
                phase = 'answering';
                const chunks = [];
                res.on('data', (chunk) => chunks.push(chunk));
                res.on('end', () => settle(() => resolvePromise({
                    status: res.statusCode ?? 0,
                    body: Buffer.concat(chunks).toString('utf8'),
                    contentType: String(res.headers['content-type'] ?? ''),
                    warnings: parseWarnings(res.headers.warning),
                    retryAfterMs: parseRetryAfter(res.headers['retry-after']),
                })));
                res.on('error', (error) => settle(() => reject(error)));
                res.on('close', () => {
                    if (!res.complete)
                        settle(() => reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' })));
                });
            });
            // A total limit, not the socket's idle timeout: that one starts again once the
            // connection is accepted, and again on each byte.
            const timer = setTimeout(() => {
                const error = new Error(`no answer to ${describe(req)} within ${timeoutMs} ms`);
                error.code = 'ETIMEDOUT';
                error.phase = phase;
                error.timeoutMs = timeoutMs;
                request.destroy(error);
            }, timeoutMs);
            request.on('socket', (socket) => {
                // A kept-alive socket is connected, its handshake done.
                if (request.reusedSocket) {
                    phase = 'sent';
                    return;
                }
                const secure = socket instanceof external_node_tls_namespaceObject.TLSSocket;
                const accepted = () => {
                    if (phase === 'connecting')
                        phase = secure ? 'handshake' : 'sent';
                };
                if (secure)
                    socket.once('secureConnect', () => (phase = 'sent'));
                // A TLS socket in a proxy's tunnel is connected when it is handed over.
                if (socket.connecting)
                    socket.once('connect', accepted);
                else
                    accepted();
            });
            request.on('error', (error) => {
                const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.message === 'socket hang up');
                settle(() => reject(stale ? new StaleSocketError(error) : error));
            });
            request.end(body);
        });
    }
    connectionError(error, req, attempts, startedAt, boundMs) {
        if (error instanceof KubeConnectionError)
            return error;
        const { code, detail } = describeConnectionError(error);
        const timedOut = error;
        return new KubeConnectionError(this.name, this.connection.server.origin, code, detail, {
            request: describe(req),
            ...(req.object ? { object: req.object } : {}),
            ...(timedOut.phase ? { phase: timedOut.phase } : {}),
            ...(timedOut.timeoutMs !== undefined ? { timeoutMs: boundMs } : {}),
            attempts,
            spentMs: Date.now() - startedAt,
        });
    }
}
/** A request failed on a kept-alive socket the server had closed. */
class StaleSocketError extends Error {
    cause;
    constructor(cause) {
        super(cause.message);
        this.cause = cause;
    }
}
function describe(req) {
    const dryRun = req.query?.dryRun ? ' (dry-run)' : '';
    const verb = req.method === 'PATCH' && req.contentType?.startsWith('application/apply-patch') ? 'server-side apply' : req.method;
    return `${verb}${dryRun} ${req.path}`;
}

;// CONCATENATED MODULE: ./src/kube/cluster.ts
// One cluster of the fleet as the engine sees it: a client, its discovery, and the
// object-level requests (get, list, delete) built on the REST mapping.





class KubeCluster {
    client;
    discovery;
    constructor(client) {
        this.client = client;
        this.discovery = new Discovery(client);
    }
    get name() {
        return this.client.name;
    }
    /** Where an object lives; a namespaced kind needs a namespace, a cluster-scoped kind drops it. */
    async locate(ref) {
        const mapping = await this.discovery.mapping(ref.apiVersion, ref.kind);
        const namespace = mapping.namespaced ? ref.namespace : '';
        if (mapping.namespaced && !namespace) {
            throw new Error(`cluster ${this.name}: ${formatRef(ref)}: namespace not specified for a namespaced kind`);
        }
        const path = `${collectionPath(mapping, namespace)}/${encodeURIComponent(ref.name)}`;
        // `.` and `..` survive encodeURIComponent and URL resolution folds them away: a GET of
        // one object would become a LIST of a namespace, or of the whole cluster.
        if (new URL(path, 'http://api.invalid').pathname !== path || ref.name === '' || ref.name === '.' || ref.name === '..') {
            throw new Error(`cluster ${this.name}: ${formatRef(ref)}: the name or namespace is not a valid object path segment`);
        }
        return { mapping, namespace, path };
    }
    /**
     * The object's identity with the namespace cleared for cluster-scoped kinds (what the
     * inventory records); a kind not served yet keeps the namespace it was built with.
     */
    async scopedRef(object) {
        const ref = refOf(object);
        const mapping = await this.discovery.mappingOrNull(ref.apiVersion, ref.kind);
        return mapping && !mapping.namespaced ? { ...ref, namespace: '' } : ref;
    }
    /** The live object, or null when it does not exist. */
    async get(ref) {
        const { path } = await this.locate(ref);
        const object = await this.client.getOrNull(path, ref);
        // One object was asked for; a list (of Secrets, say) is never handed on.
        if (object && (Array.isArray(object.items) || (typeof object.kind === 'string' && object.kind !== ref.kind))) {
            throw new Error(`cluster ${this.name}: ${formatRef(ref)}: the API server answered with ${String(object.kind)} instead of one ${ref.kind}; not used`);
        }
        return object;
    }
    /** Objects of a kind, in a namespace (or all namespaces with ''), filtered by labels. */
    async list(apiVersion, kind, namespace, labelSelector) {
        const mapping = await this.discovery.mapping(apiVersion, kind);
        const selector = labelSelector ? Object.entries(labelSelector).map(([k, v]) => `${k}=${v}`).join(',') : undefined;
        const answer = await this.client.request({
            method: 'GET',
            path: collectionPath(mapping, mapping.namespaced ? namespace : ''),
            query: { labelSelector: selector },
        });
        // List items carry no apiVersion/kind: put them back.
        return (answer.items ?? []).map((item) => ({ ...item, apiVersion, kind }));
    }
    /** Deletes an object (background propagation); false when it was already gone. */
    async delete(ref, propagationPolicy = 'Background') {
        const { path } = await this.locate(ref);
        try {
            await this.client.request({ method: 'DELETE', path, object: ref, body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy } });
            return true;
        }
        catch (error) {
            if (error instanceof errors_KubeApiError && error.status === 404)
                return false;
            throw error;
        }
    }
    close() {
        this.client.close();
    }
}
/** `/api/v1/namespaces/ns/configmaps`, `/apis/apps/v1/deployments`... */
function collectionPath(mapping, namespace) {
    const base = mapping.group ? `/apis/${mapping.group}/${mapping.version}` : `/api/${mapping.version}`;
    return namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${mapping.resource}` : `${base}/${mapping.resource}`;
}
/** A cluster reached through a kube context (default: the current context). */
function openCluster(config, contextName, options) {
    return new KubeCluster(new KubeClient(connectionFor(config, contextName, options), options));
}


;// CONCATENATED MODULE: ./src/kube/private-files.ts
// Files written for credentials (e.g. a kubeconfig handed to another program) live in one
// private folder (mode 0700), each file mode 0600, all removed when the process exits.



let folder;
function privateFolder() {
    if (!folder) {
        folder = mkdtempSync(join(tmpdir(), 'timoni-fleet-'));
        const created = folder;
        process.once('exit', () => rmSync(created, { recursive: true, force: true }));
    }
    return folder;
}
/** Writes a file readable by this user only; answers its path. */
function writePrivateFile(name, content) {
    if (name.includes('/') || name.includes('\\') || name === '..' || name === '.')
        throw new Error(`invalid private file name ${JSON.stringify(name)}`);
    const path = join(privateFolder(), name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
}
/** Removes the private folder now (it is also removed at exit). */
function removePrivateFiles() {
    if (folder)
        rmSync(folder, { recursive: true, force: true });
    folder = undefined;
}

;// CONCATENATED MODULE: ./src/kube/instance-apply.ts
// Applies one built instance to one cluster as Timoni v0.32's reconciler does
// (internal/reconciler/reconciler.go, interactive.go):
//   ownership check (nothing written before it) -> namespace -> inventory record
//   (install: the whole record first; upgrade with other objects: `data.pending`) ->
//   each apply set in stages (definitions, wait; classes, wait; Roles; the rest), then a
//   readiness wait when asked -> prune of the objects the build lost -> the final record.
// A readiness failure stops further sets but still lets the prune run, as in Timoni; the
// record is then not promoted, so the pending revision stays for the next run.
// A cancellation (`signal`, the run's SIGINT or SIGTERM) starts nothing new: the object
// being applied finishes, a wait ends at once, the prune is not started, and the record is
// written for what was applied (InstanceCancelledError says where and which record): every
// object applied -> the final record (with objects left unpruned still in its inventory, for
// the next run to prune); some -> the revision being applied as `data.pending` beside the
// stored one (an install's record, written first, lists them already); none -> nothing.














const namespaceChange = (name) => ({
    kind: 'Namespace',
    apiVersion: 'v1',
    namespace: '',
    name,
    action: 'created',
    diff: wholeObjectDiff({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'app.kubernetes.io/created-by': 'timoni' } } }),
});
/** The run was cancelled while the instance was applied: `step` is where, `record` what was written. */
class InstanceCancelledError extends InstanceStepError {
    record;
    readiness;
    recordError;
    name = 'InstanceCancelledError';
    constructor(cluster, step, instance, changes, cause, object, record, 
    /** The last readiness known of the objects waited for, when the cancellation came during a wait. */
    readiness = [], 
    /** Why the record could not be written, when it could not. */
    recordError) {
        super(cluster, step, instance, changes, cause, object);
        this.record = record;
        this.readiness = readiness;
        this.recordError = recordError;
        const signal = cause instanceof Error && cause.message ? cause.message : 'the run was cancelled';
        this.message = `cluster ${cluster}: instance ${instance}: ${signal} during ${step}${object ? ` (${object})` : ''}: ${cancelledRecordText(record)}${recordError ? `; writing the instance record failed: ${recordError}` : ''}`;
    }
}
function cancelledRecordText(record) {
    switch (record) {
        case 'final':
            return 'every object was applied and the instance record written for them (readiness not waited for)';
        case 'pending':
            return "objects applied in part; the revision being applied is saved as the record's pending revision, the stored one stays the last complete apply";
        case 'install':
            return 'objects applied in part; the instance record written at install lists every object of the build';
        case 'none':
            return 'nothing of the instance was applied';
    }
}
/** Same set of entries, order ignored (Timoni's sameInventory, which compares id and version). */
function sameInventory(a, b) {
    const set = (entries) => new Set((entries ?? []).map((e) => `${e.id}|${e.v}`));
    const x = set(a);
    const y = set(b);
    return x.size === y.size && [...x].every((key) => y.has(key));
}
/** The object's identity, with the namespace cleared when its kind is cluster-scoped. */
async function scopedRefs(cluster, objects) {
    return Promise.all(objects.map((object) => cluster.scopedRef(object)));
}
/** Applies one object and says what changed, with the diff of what apply changed. */
async function applyOne(cluster, desired, ref, force) {
    let before = null;
    try {
        before = await cluster.get(refOf(desired));
    }
    catch (error) {
        if (!(error instanceof NoMatchError))
            throw error;
    }
    const result = await applyObject(cluster, desired, { force });
    let diff = { diff: '' };
    if (result.action === 'created' || (result.action === 'recreated' && !before))
        diff = { diff: wholeObjectDiff(desired) };
    else if (result.action === 'recreated' && before)
        diff = recreateDiff(before, desired, result.immutableFields ?? [], true);
    else if (result.action === 'configured' && before)
        diff = objectDiff(before, result.object, await comparesStatus(cluster, desired));
    return { change: { kind: ref.kind, apiVersion: ref.apiVersion, namespace: ref.namespace, name: ref.name, action: result.action, ...diff }, result };
}
/**
 * Applies the instance; throws an InstanceStepError naming the step (and object) that
 * failed, with the changes made before it.
 */
function applyInstance(cluster, instance, options = {}) {
    // Requests retried while an API server restarts (request-retry.ts) stop at the same deadline.
    const deadline = options.deadline ?? Date.now() + (options.timeoutMs ?? 300_000);
    return withRequestDeadline(deadline, () => applyInstanceSteps(cluster, instance, { ...options, deadline }));
}
async function applyInstanceSteps(cluster, instance, options) {
    const id = instanceId(instance);
    const log = options.log ?? (() => undefined);
    const deadline = options.deadline ?? Date.now() + (options.timeoutMs ?? 300_000);
    const changes = [];
    const readiness = [];
    const fail = (step, error, object) => {
        if (error instanceof InstanceStepError)
            throw error;
        throw new InstanceStepError(cluster.name, step, id, [...changes], error, object);
    };
    const waitOptions = () => ({ timeoutMs: options.timeoutMs ?? 300_000, deadline, signal: options.signal, intervalMs: options.pollIntervalMs });
    const cancelled = () => options.signal?.aborted === true;
    // What a cancellation has to record (see the header), filled in as the apply goes.
    const progress = { stored: false, appliedObjects: 0, allApplied: false, pruned: false, pendingSaved: false };
    let recordRefs = () => [];
    const stopCancelled = async (step, object) => {
        let record = 'none';
        let recordError;
        try {
            if (progress.allApplied) {
                record = 'final';
                await writeInstance(cluster, instanceRecord(instance, recordRefs(), true));
            }
            else if (progress.appliedObjects > 0 && !progress.stored) {
                record = 'install';
            }
            else if (progress.appliedObjects > 0) {
                record = 'pending';
                if (!progress.pendingSaved)
                    await savePending(cluster, instanceRecord(instance, recordRefs(), false));
            }
        }
        catch (error) {
            recordError = error instanceof Error ? error.message : String(error);
        }
        const reason = options.signal?.reason;
        const cause = (0,cancellation/* cancellationOf */.zg)(options.signal) ?? (reason instanceof Error ? reason : new Error('the run was cancelled'));
        throw new InstanceCancelledError(cluster.name, step, id, [...changes], cause, object, record, [...readiness], recordError);
    };
    // 1. Ownership, before anything is written.
    let stored = null;
    try {
        if (!options.overwriteOwnership) {
            await assertOwnership(cluster, instance.bundle, [instance]);
        }
        stored = await inventory_store_readInstance(cluster, instance.name, instance.namespace);
    }
    catch (error) {
        fail('ownership', error);
    }
    // 2. The namespace.
    if (cancelled())
        await stopCancelled('namespace');
    try {
        if (await ensureNamespace(cluster, instance.namespace)) {
            changes.push(namespaceChange(instance.namespace));
            log(`Namespace/${instance.namespace} created`);
        }
    }
    catch (error) {
        fail('namespace', error, `Namespace/${instance.namespace}`);
    }
    // 3. The intended inventory, before the objects are touched.
    const sets = labelledSets(instance);
    const allObjects = sets.flatMap((set) => set.objects);
    const prune = options.prune ?? true;
    let refs = [];
    let stale = [];
    // What the record will hold: the build's objects, and without prune the stale ones too.
    let intended = [];
    if (cancelled())
        await stopCancelled('inventory');
    try {
        refs = await scopedRefs(cluster, allObjects);
        stale = staleObjects(stored, inventoryEntries(refs));
        intended = prune ? refs : [...refs, ...stale];
        if (!stored) {
            log(`installing ${instance.name} in namespace ${instance.namespace}`);
            await writeInstance(cluster, instanceRecord(instance, intended, false));
        }
        else {
            progress.stored = true;
            log(`upgrading ${instance.name} in namespace ${instance.namespace}`);
            if (!sameInventory(inventoryEntries(intended), stored.instance.inventory?.entries)) {
                await savePending(cluster, instanceRecord(instance, intended, false));
                progress.pendingSaved = true;
            }
        }
    }
    catch (error) {
        fail('inventory', error, `Secret/${instance.namespace}/timoni.${instance.name}`);
    }
    const refFor = new Map(allObjects.map((object, i) => [object, refs[i]]));
    // A cancelled apply records every object of the build, and the stale ones until they are pruned.
    recordRefs = () => (prune && !progress.pruned ? [...refs, ...stale] : intended);
    // 4. The apply sets, in order; each in stages, then the readiness wait.
    let readinessError;
    for (const set of sets) {
        if (sets.length > 1)
            log(`applying ${set.name}`);
        for (const stage of applyStages(set.objects)) {
            for (const object of stage.objects) {
                const ref = refFor.get(object);
                if (cancelled())
                    await stopCancelled('apply', formatRef(ref));
                try {
                    const { change } = await applyOne(cluster, object, ref, !!options.force);
                    progress.appliedObjects += 1;
                    progress.allApplied = progress.appliedObjects === allObjects.length;
                    changes.push(change);
                    log(`${formatRef(ref)} ${change.action}`);
                }
                catch (error) {
                    fail('apply', error, formatRef(ref));
                }
            }
            if (stage.waitAfter) {
                // CRDs established, Namespaces active... before the objects that need them (all of
                // them, whatever their wait annotation, as fluxcd ssa's staged apply does).
                try {
                    readiness.push(...(await waitForReady(cluster, stage.objects.map((o) => refFor.get(o)), waitOptions())));
                }
                catch (error) {
                    if (cancelled()) {
                        if (error instanceof WaitError)
                            readiness.push(...error.notReady);
                        await stopCancelled('wait', waitObject(error));
                    }
                    fail('wait', error, waitObject(error));
                }
                if (stage.objects.some((o) => o.kind === 'CustomResourceDefinition'))
                    await cluster.discovery.refresh();
            }
        }
        if (options.wait) {
            const waitFor = sortForApply(objectsToWaitFor(set.objects));
            log(`waiting for ${waitFor.length} resource(s) to become ready...`);
            try {
                const done = await waitForReady(cluster, waitFor, waitOptions());
                readiness.push(...done.filter((r) => !readiness.some((known) => formatRef(known.object) === formatRef(r.object))));
                log(`${set.name} resources ready`);
            }
            catch (error) {
                if (cancelled()) {
                    if (error instanceof WaitError)
                        readiness.push(...error.notReady.filter((r) => !readiness.some((known) => formatRef(known.object) === formatRef(r.object))));
                    await stopCancelled('wait', waitObject(error));
                }
                // As Timoni: stop applying, but still prune what the build lost.
                readinessError = error;
                if (error instanceof WaitError)
                    readiness.push(...error.notReady);
                break;
            }
        }
    }
    // 5. Prune what the build lost (not started once cancelled: the record keeps those objects).
    if (prune && cancelled() && !readinessError)
        await stopCancelled('prune');
    if (prune) {
        try {
            const pruned = await deleteObjects(cluster, stale, instance, { log });
            progress.pruned = true;
            changes.push(...pruned);
            if (options.wait) {
                const gone = pruned.filter((c) => c.action === 'deleted' && c.diff).map((c) => ({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name }));
                if (gone.length > 0) {
                    log(`waiting for ${gone.length} resource(s) to be finalized...`);
                    await waitForDeletion(cluster, gone, waitOptions());
                }
            }
        }
        catch (error) {
            if (error instanceof DeleteObjectsError)
                changes.push(...error.changes);
            if (progress.pruned && cancelled() && !readinessError)
                await stopCancelled('prune');
            const object = error instanceof DeleteObjectsError ? error.object : undefined;
            if (readinessError) {
                fail('wait', new Error(`${readinessError.message}; pruning failed too: ${error.message}`), waitObject(readinessError));
            }
            fail('prune', error, object);
        }
    }
    if (readinessError)
        fail('wait', readinessError, waitObject(readinessError));
    // 6. The final record (drops `data.pending`).
    let record;
    try {
        record = await writeInstance(cluster, instanceRecord(instance, intended, true));
    }
    catch (error) {
        return fail('inventory', error, `Secret/${instance.namespace}/timoni.${instance.name}`);
    }
    return { changes, readiness, record, installed: !stored };
}
function waitObject(error) {
    if (!(error instanceof WaitError))
        return undefined;
    const first = error.notReady.find((r) => r.status !== 'Current') ?? error.notReady[0];
    return first ? formatRef(first.object) : undefined;
}

;// CONCATENATED MODULE: ./src/kube/instance-status.ts




/** The status of one stored instance: each inventory object read from the cluster. */
async function instanceStatus(cluster, stored) {
    const { instance } = stored;
    const refs = (instance.inventory?.entries ?? []).map(parseInventoryEntry);
    // A running Job is Current here, as `timoni bundle status` (plain kstatus) reports it.
    const objects = await Promise.all(refs.map((ref) => readObjectStatus(cluster, ref, { jobs: 'started' })));
    const deleting = instance.annotations?.[deletingAnnotation];
    return {
        name: instance.name,
        namespace: instance.namespace,
        bundle: instance.labels?.[bundleNameLabel] ?? '',
        module: { name: instance.module.name, url: instance.module.repository, version: instance.module.version, digest: instance.module.digest },
        lastApplied: instance.lastTransitionTime ?? '',
        images: instance.images ?? [],
        objects,
        pending: !!stored.pending,
        ...(deleting ? { deleting } : {}),
        ready: objects.every((o) => o.status === 'Current'),
    };
}
/** Every instance of the bundle in the cluster (all namespaces), oldest first. */
async function bundleStatus(cluster, bundle) {
    const stored = await listInstances(cluster, '', bundle);
    const statuses = [];
    for (const instance of stored)
        statuses.push(await instanceStatus(cluster, instance));
    return statuses;
}

;// CONCATENATED MODULE: ./src/kube/index.ts
// The Kubernetes engine's public face: what the fleet layer and the CLI use.





























;// CONCATENATED MODULE: ./src/kube/cluster-identity.ts


const IDENTITY_NAMESPACE = 'kube-system';
const DEFAULT_IDENTITY_RECORD = 'timoni-fleet-identity';
/** Our own field manager: the record is never Timoni's, and Timoni's fields are never ours. */
const IDENTITY_FIELD_MANAGER = 'timoni-fleet';
const IDENTITY_LABELS = { 'app.kubernetes.io/managed-by': 'timoni-fleet', 'app.kubernetes.io/component': 'cluster-identity' };
/**
 * `check`: refuse a cluster whose record names another runtime cluster (nothing written);
 * `record`: also write the record on an apply when there is none (the first apply), and
 * refuse two runtime clusters of one run that reach the same cluster; `off`: nothing.
 */
const IDENTITY_MODES = ['check', 'record', 'off'];
/** A cluster refused because its identity does not match the runtime cluster it was reached as. */
class ClusterIdentityError extends Error {
    uid;
    record;
    name = 'ClusterIdentityError';
    constructor(message, uid, 
    /** The record that refused the cluster, when one did. */
    record) {
        super(message);
        this.uid = uid;
        this.record = record;
    }
}
/** `1a2b3c4d…` — enough of a UID to tell clusters apart in a report. */
function shortUid(uid) {
    return uid.length > 8 ? `${uid.slice(0, 8)}…` : uid;
}
const namespacePath = `/api/v1/namespaces/${IDENTITY_NAMESPACE}`;
const recordPath = (name) => `${namespacePath}/configmaps/${encodeURIComponent(name)}`;
/** The UID of the cluster's `kube-system` Namespace. */
async function readClusterUid(cluster) {
    const namespace = await cluster.client.request({ method: 'GET', path: namespacePath, object: { apiVersion: 'v1', kind: 'Namespace', namespace: '', name: IDENTITY_NAMESPACE } });
    const uid = namespace.metadata?.uid;
    if (typeof uid !== 'string' || uid === '')
        throw new Error(`cluster ${cluster.name}: the ${IDENTITY_NAMESPACE} Namespace has no UID`);
    return uid;
}
/** The record's data, or null when the object is not a record of ours (missing fields). */
function parseIdentityRecord(object) {
    const data = object && isRecord(object.data) ? object.data : null;
    if (!data)
        return null;
    const { runtimeCluster, uid, recordedAt } = data;
    if (typeof runtimeCluster !== 'string' || runtimeCluster === '' || typeof uid !== 'string' || uid === '')
        return null;
    return { runtimeCluster, uid, recordedAt: typeof recordedAt === 'string' ? recordedAt : '' };
}
/** The ConfigMap that records the identity, as it is applied. */
function identityRecordObject(name, record) {
    return {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: IDENTITY_NAMESPACE, labels: { ...IDENTITY_LABELS } },
        data: { runtimeCluster: record.runtimeCluster, uid: record.uid, recordedAt: record.recordedAt },
    };
}
/** The record in the cluster, or null when there is none. */
async function readIdentityRecord(cluster, name = DEFAULT_IDENTITY_RECORD) {
    const object = await cluster.client.getOrNull(recordPath(name), { apiVersion: 'v1', kind: 'ConfigMap', namespace: IDENTITY_NAMESPACE, name });
    return parseIdentityRecord(object);
}
/** Writes (or overwrites) the record with server-side apply under our own field manager. */
async function writeIdentityRecord(cluster, record, name = DEFAULT_IDENTITY_RECORD) {
    await cluster.client.request({
        method: 'PATCH',
        path: recordPath(name),
        query: { fieldManager: IDENTITY_FIELD_MANAGER, force: true },
        body: JSON.stringify(identityRecordObject(name, record)),
        contentType: 'application/apply-patch+yaml',
        object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: IDENTITY_NAMESPACE, name },
    });
}
/** Removes the record (tests, or a cluster retired from the fleet); false when there was none. */
async function deleteIdentityRecord(cluster, name = DEFAULT_IDENTITY_RECORD) {
    try {
        await cluster.client.request({ method: 'DELETE', path: recordPath(name), object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: IDENTITY_NAMESPACE, name } });
        return true;
    }
    catch (error) {
        if (error instanceof KubeApiError && error.status === 404)
            return false;
        throw error;
    }
}
/** The message of a refused cluster: both names, the context, the UID, and how to re-pin. */
function mismatchMessage(context, record, uid) {
    const reached = context.kubeContext ? `context "${context.kubeContext}"` : 'the current context';
    return (`${reached} reaches the cluster recorded as "${record.runtimeCluster}" (kube-system uid ${uid}${record.recordedAt ? `, recorded ${record.recordedAt}` : ''}), not "${context.runtimeCluster}": ` +
        `was the kubeconfig or its secret copied, or the context renamed? The cluster is refused. ` +
        `To re-pin it deliberately, run an apply with repin-clusters: ${context.runtimeCluster} (CLI: --repin-cluster ${context.runtimeCluster})`);
}
/**
 * What to do with a cluster given its record (or none) and its live UID. A record whose UID
 * is not the live one but names this runtime cluster (restored from a backup of this very
 * cluster) matches and is rewritten; a record naming another runtime cluster is refused
 * whatever its UID says, since it lies in the cluster reached.
 */
function decideIdentity(context, record, uid, repin) {
    if (!record)
        return { kind: 'none' };
    if (record.runtimeCluster === context.runtimeCluster)
        return { kind: 'match', record, rewrite: record.uid !== uid };
    if (repin)
        return { kind: 'repin', record };
    return { kind: 'mismatch', record, message: mismatchMessage(context, record, uid) };
}
/**
 * `repin-clusters` / `--repin-cluster`: names separated by commas, spaces or lines. Runtime
 * cluster names are case-insensitive in selections, so they are compared lower-cased.
 */
function parseRepinList(values) {
    return values.flatMap((value) => value.split(/[\s,]+/)).map((name) => name.trim()).filter(Boolean);
}
function repinsCluster(repin, runtimeCluster) {
    const name = runtimeCluster.toLowerCase();
    return repin.some((entry) => entry.toLowerCase() === name);
}
const cluster_identity_isForbidden = (error) => error instanceof errors_KubeApiError && (error.status === 403 || error.status === 401);
function rightsMessage(cluster, recordName, error) {
    return `cluster ${cluster.name}: cannot read or write its identity record (get and patch on ConfigMap ${IDENTITY_NAMESPACE}/${recordName}, get on Namespace ${IDENTITY_NAMESPACE} are needed): ${error.statusMessage || `HTTP ${error.status}`}`;
}
/**
 * Reads the cluster's identity record and decides: a record naming another runtime cluster
 * throws ClusterIdentityError (unless re-pinned: on an apply the record is overwritten, a
 * diff only says so); in `record` mode an apply writes the first record. A user who may not
 * read the record is not refused in `check` mode (the identity is then not checked, and
 * `note` says so); in `record` mode on an apply it is an error.
 */
async function establishIdentity(cluster, context, options) {
    if (options.mode === 'off')
        return null;
    const recordName = options.recordName || DEFAULT_IDENTITY_RECORD;
    const writes = options.apply && (options.mode === 'record' || options.repin);
    let record;
    let uid;
    try {
        record = await readIdentityRecord(cluster, recordName);
        // Without a record and nothing to write, the UID is not needed: one request per cluster.
        if (record || options.mode === 'record')
            uid = await readClusterUid(cluster);
    }
    catch (error) {
        if (!cluster_identity_isForbidden(error))
            throw error;
        if (writes)
            throw new ClusterIdentityError(rightsMessage(cluster, recordName, error));
        return { record: null, note: `cluster identity not checked: ${rightsMessage(cluster, recordName, error)}` };
    }
    if (!uid)
        return { record };
    const decision = decideIdentity(context, record, uid, options.repin);
    // A record naming another runtime cluster says more (a copied kubeconfig) than the run's
    // own check that no two of its runtime clusters reach this cluster: it is reported first.
    if (decision.kind === 'mismatch')
        throw new ClusterIdentityError(`cluster ${context.runtimeCluster}: ${decision.message}`, uid, decision.record);
    options.onUid?.(uid);
    const fresh = { runtimeCluster: context.runtimeCluster, uid, recordedAt: (options.now ?? (() => new Date()))().toISOString() };
    const write = async (change) => {
        try {
            await writeIdentityRecord(cluster, fresh, recordName);
        }
        catch (error) {
            if (cluster_identity_isForbidden(error))
                throw new ClusterIdentityError(rightsMessage(cluster, recordName, error), uid);
            throw error;
        }
        return { uid, record, change, current: fresh };
    };
    switch (decision.kind) {
        case 'none':
            return options.apply && options.mode === 'record' ? write('recorded') : { uid, record };
        case 'match':
            return decision.rewrite && writes ? write('rewritten') : { uid, record, current: decision.record };
        case 'repin':
            if (options.apply)
                return write('repinned');
            return { uid, record, note: `cluster identity: recorded as "${decision.record.runtimeCluster}"; re-pinned as "${context.runtimeCluster}" by an apply with this re-pin` };
    }
}

;// CONCATENATED MODULE: ./src/fleet/session.ts
// One cluster's part of a run: its connection (the client opened from its kube context, its
// Kubernetes version, a reader for runtime value queries), and what it should run (the
// bundle evaluated for that cluster, every instance built from its module with the
// cluster's Kubernetes version), in the shape the Kubernetes engine applies or diffs.
// A cluster that cannot be reached becomes a failed entry (step `connect`) instead of an
// exception, so that the other clusters are still diffed. A bundle error that no cluster can
// change is found once, before any cluster is connected, and told once (step `bundle`).





/** `v1.36.3` or `v1.36.3+k3s1` -> `1.36.3`, as Timoni passes it to modules. */
function moduleKubeVersion(gitVersion) {
    const match = /^v?(\d+\.\d+\.\d+)/.exec(gitVersion);
    return match?.[1] ?? gitVersion.replace(/^v/, '');
}
async function openSession(kubeconfig, cluster, options) {
    const kube = openCluster(kubeconfig, cluster.kubeContext || undefined, { ...options, name: cluster.name });
    try {
        const version = await kube.client.version();
        const readObject = async (_cluster, query) => {
            const object = await kube.get({ apiVersion: query.apiVersion, kind: query.kind, namespace: query.namespace, name: query.name });
            return object ?? undefined;
        };
        return { runtimeCluster: cluster, kube, kubeVersion: moduleKubeVersion(version.gitVersion), readObject };
    }
    catch (error) {
        kube.close();
        throw error;
    }
}
/**
 * Opens a cluster for a plan or a rollout; the first request of the run is timed. Then its
 * identity is checked (and on an apply, recorded): a cluster recorded under another runtime
 * name fails with step `identity` before anything is evaluated or read from it.
 */
async function connectCluster(run, cluster, line, startedAt, purpose = 'diff') {
    const bundleError = await bundleErrorOnce(run);
    // The cluster's entry says why in one line; the errors themselves were told once, above.
    if (bundleError)
        return { failed: clusterEntry(cluster, 'failed', [], { step: 'bundle', message: bundleError.summary }, startedAt) };
    if (run.timings)
        run.timings.firstClusterRequestMs ??= performance.now();
    let session;
    try {
        // A request sent again (a restarted API server, a 503) is told in the cluster's own log.
        session = await openSession(run.kubeconfig, cluster, { secrets: run.secrets, onRetry: (retry) => line(retry.text) });
    }
    catch (error) {
        const reason = connectFailure(cluster, error);
        line(`✗ cannot reach cluster ${cluster.name}: ${reason}`);
        run.onClusterError?.(cluster.name, error);
        return { failed: clusterEntry(cluster, 'failed', [], { step: 'connect', message: reason }, startedAt) };
    }
    try {
        session.identity = await checkIdentity(run, session, line, purpose);
        return { session };
    }
    catch (error) {
        session.kube.close();
        // The step is named: a request that timed out says which one, this says where in the run.
        line(`✗ identity check: ${error instanceof Error ? error.message : String(error)}`);
        run.onClusterError?.(cluster.name, error);
        const entry = clusterEntry(cluster, 'failed', [], clusterError(new ClusterStepError('identity', error), 'identity'), startedAt);
        if (!(error instanceof ClusterIdentityError) || !error.uid)
            return { failed: entry };
        const record = error.record ? { recordedAs: error.record.runtimeCluster, recordedAt: error.record.recordedAt } : {};
        return { failed: { ...entry, identity: { uid: error.uid, ...record } } };
    }
}
/**
 * Why a cluster could not be opened, each fact once (the line already says `cannot reach
 * cluster X`): a 401 says whose credentials were refused.
 */
function connectFailure(cluster, error) {
    const message = error instanceof Error ? error.message : String(error);
    const own = message.startsWith(`cluster ${cluster.name}: `) ? message.slice(`cluster ${cluster.name}: `.length) : message;
    if (error instanceof errors_KubeApiError && error.status === 401) {
        const context = cluster.kubeContext ? `kube context ${(0,display_text/* quote */.h)(cluster.kubeContext)}` : "the kubeconfig's current context";
        return `the API server rejected the credentials of ${context} (401 Unauthorized on ${error.request})`;
    }
    return own;
}
// ---- The bundle, checked once per run before any cluster
/** Each run's bundle check (bundle/clusters.ts bundleErrorWithoutCluster), started by the rollout or the first cluster. */
const bundleChecks = new WeakMap();
/**
 * The bundle's error that no cluster can change, found once per run before any cluster is
 * connected, and told once: on the run's log (not a cluster's) and to onClusterError with
 * no cluster name (the action's annotations on the user's lines). Every cluster then fails
 * unreached, with step `bundle` and the error's one-line summary as its message.
 */
function bundleErrorOnce(run) {
    let check = bundleChecks.get(run);
    if (!check) {
        check = bundleErrorWithoutCluster(run.engine, { ...run.evaluation, selector: run.selector }).then((error) => {
            if (error) {
                run.log.line(`✗ ${error.message}`);
                run.onClusterError?.('', error);
            }
            return error;
        }, 
        // A check that could not run says nothing of the bundle: each cluster's own evaluation meets the same failure and reports it.
        () => undefined);
        bundleChecks.set(run, check);
    }
    return check;
}
/** Runtime clusters by the kube-system UID they reached, per run (recording runs only). */
const reachedByRun = new WeakMap();
/** The cluster's identity checked, or recorded on an apply; throws when it is refused. */
async function checkIdentity(run, session, line, purpose) {
    const options = run.options.identity ?? { mode: 'check', repin: [] };
    const { name, kubeContext } = session.runtimeCluster;
    // Two runtime clusters of one run reaching one cluster would apply two runtimes' values to
    // it: refused when recording, before anything is written.
    const claim = (uid) => {
        let reached = reachedByRun.get(run);
        if (!reached)
            reachedByRun.set(run, (reached = new Map()));
        const other = reached.get(uid);
        if (other !== undefined && other !== name) {
            throw new ClusterIdentityError(`cluster ${name}: context "${kubeContext}" reaches the same cluster (kube-system uid ${uid}) as runtime cluster "${other}" of this run: one cluster cannot be two runtime clusters`, uid);
        }
        reached.set(uid, name);
    };
    const established = await establishIdentity(session.kube, { runtimeCluster: name, kubeContext }, {
        mode: options.mode,
        ...(options.recordName ? { recordName: options.recordName } : {}),
        repin: repinsCluster(options.repin, name),
        apply: purpose === 'apply',
        ...(options.mode === 'record' ? { onUid: claim } : {}),
    });
    if (!established)
        return undefined;
    if (established.note)
        line(established.note);
    const { uid } = established;
    if (!uid)
        return undefined;
    const current = established.current;
    if (established.change)
        line(`cluster identity ${established.change}: "${name}" is kube-system uid ${uid}${established.record && established.change === 'repinned' ? ` (was "${established.record.runtimeCluster}")` : ''}`);
    return {
        uid,
        ...(current ? { recordedAs: current.runtimeCluster, recordedAt: current.recordedAt } : {}),
        ...(established.change ? { change: established.change } : {}),
    };
}
/** A cluster's ChangeSet entry with the identity its session established. */
function withIdentity(session, entry) {
    return session.identity ? { ...entry, identity: session.identity } : entry;
}
/**
 * Evaluates the bundle for the cluster and starts every instance's build at once: the
 * engine takes them one at a time (InstanceBuilds), and a caller may use each as soon as
 * it is there (a plan diffs the first instance while the next ones build).
 */
async function startClusterBuilds(engine, evaluation, resolver, session, registerSecret, builds) {
    let evaluated;
    try {
        evaluated = await evaluateForCluster(engine, { ...evaluation, readObject: session.readObject }, session.runtimeCluster);
    }
    catch (error) {
        throw new ClusterStepError('evaluate', error);
    }
    // Runtime values from the environment or cluster Secrets are masked before anything prints.
    for (const value of evaluated.secretValues)
        registerSecret(value);
    const instances = evaluated.bundle.instances.map(async (instance) => {
        try {
            const module = await resolver.resolve(instance.module);
            const built = await builds.build(module, {
                name: instance.name,
                namespace: instance.namespace,
                values: instance.valuesCue,
                kubeVersion: session.kubeVersion,
                ...(instance.locateValues ? { locateValues: instance.locateValues } : {}),
            });
            return { name: instance.name, namespace: instance.namespace, module, built };
        }
        catch (error) {
            throw new ClusterStepError('build', error, instance.name);
        }
    });
    // Whoever awaits them does so in order; a later failure waits for its turn, unreported meanwhile.
    for (const pending of instances)
        pending.catch(() => undefined);
    return { evaluated, instances };
}
/** Every instance built, in bundle order; the first failure in that order is thrown. */
async function allBuilt(instances) {
    const built = [];
    for (const pending of instances)
        built.push(await pending);
    return built;
}
async function buildForCluster(...args) {
    const started = await startClusterBuilds(...args);
    return { evaluated: started.evaluated, instances: await allBuilt(started.instances) };
}
/** The shape the Kubernetes engine applies or diffs: one built instance of the bundle. */
function instanceInput(bundle, instance) {
    return {
        bundle,
        name: instance.name,
        namespace: instance.namespace,
        module: {
            url: instance.module.url,
            version: instance.module.version,
            digest: instance.module.digest,
            name: instance.module.name,
            ...(instance.module.repository ? { repository: instance.module.repository } : {}),
            ...(instance.module.annotations ? { annotations: instance.module.annotations } : {}),
        },
        sets: instance.built.sets,
        valuesSource: instance.built.values,
        images: instance.built.images,
    };
}
function moduleInfo(instance) {
    return { url: instance.module.url, version: instance.module.version, digest: instance.module.digest };
}

;// CONCATENATED MODULE: ./src/fleet/reviewed.ts
// Apply what was reviewed: the desired state of one cluster as digests, and what differs
// between the state a pull request's diff recorded and the one about to be applied.
//
// The digest of a cluster is sha256 over stable JSON (map keys sorted) of, per instance,
// its module (url, version, digest) and every object it builds, normalised as a diff
// compares them (`kube/normalize.ts`), keyed `instance/Kind/namespace/name` and sorted by
// that key (the state, not the order it is applied in). A Secret's `data` and `stringData`
// values are replaced by `sha256:<hex>` of the value before anything else sees the object,
// so no secret value enters the digest's input nor its output. Each object also has a
// digest of its own (16 hex: 64 bits, enough to name the object that changed; the cluster
// digest, whole, decides whether anything changed), so that a mismatch can name objects.
//
// What a digest cannot hide: a Secret value of low entropy (a 4-digit PIN) could be guessed
// by hashing candidates and comparing with a published object digest, as with any published
// hash; the review record in the PR comment holds these digests.
//
// Pure: no cluster, no GitHub. The rollout computes the state (rollout.ts) and hands it to
// the run's `beforeApply`; the action compares it with the PR comment's record.





/** Hex digits kept of each object's own digest. */
const OBJECT_DIGEST_LENGTH = 16;
const sha256 = (text) => (0,external_node_crypto_.createHash)('sha256').update(text).digest('hex');
/** JSON with every map's keys sorted, so that equal values give equal text. */
function stableJson(value) {
    if (Array.isArray(value))
        return `[${value.map((item) => stableJson(item === undefined ? null : item)).join(',')}]`;
    if (isRecord(value)) {
        const keys = Object.keys(value)
            .filter((key) => value[key] !== undefined)
            .sort();
        return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
}
/** `instance/Kind/namespace/name` (`instance/Kind/name` when cluster-scoped). */
function objectKey(instance, object) {
    return [instance, object.kind, object.metadata.namespace ?? '', object.metadata.name].filter(Boolean).join('/');
}
/** The object as the digest reads it: normalised, a Secret's values replaced by their sha256. */
function digestInput(object) {
    const normalised = normalizeObject(object);
    if (!isSecret(normalised))
        return normalised;
    for (const field of ['data', 'stringData']) {
        const value = normalised[field];
        if (value === undefined)
            continue;
        normalised[field] = isRecord(value)
            ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, `sha256:${sha256(String(item))}`]))
            : `sha256:${sha256(stableJson(value))}`;
    }
    const annotations = normalised.metadata.annotations;
    // `kubectl apply` copies the whole object, data included, into this annotation.
    const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';
    if (annotations && lastApplied in annotations)
        normalised.metadata.annotations = { ...annotations, [lastApplied]: `sha256:${sha256(annotations[lastApplied] ?? '')}` };
    return normalised;
}
/** The desired state of one cluster as digests: see the header. */
function desiredState(instances) {
    const modules = {};
    const entries = [];
    for (const instance of instances) {
        modules[instance.name] = { url: instance.module.url, version: instance.module.version, digest: instance.module.digest };
        for (const object of instance.objects) {
            let key = objectKey(instance.name, object);
            // The same name twice in one instance (two kinds of one name in different API groups).
            if (entries.some(([existing]) => existing === key))
                key = `${key}#${object.apiVersion}`;
            entries.push([key, sha256(stableJson(digestInput(object)))]);
        }
    }
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const digest = sha256(stableJson({ modules, objects: entries }));
    const objects = Object.fromEntries(entries.map(([key, full]) => [key, full.slice(0, OBJECT_DIGEST_LENGTH)]));
    return { digest, modules, objects, objectCount: entries.length };
}
function sameModule(a, b) {
    return !!a && !!b && a.url === b.url && a.version === b.version && a.digest === b.digest;
}
/** What differs between the reviewed state and the current one; null when they are the same. */
function compareDesired(reviewed, current) {
    if (reviewed.digest === current.digest)
        return null;
    const instances = [...new Set([...Object.keys(reviewed.modules), ...Object.keys(current.modules)])];
    const modules = instances
        .filter((instance) => !sameModule(reviewed.modules[instance], current.modules[instance]))
        .map((instance) => ({ instance, ...(reviewed.modules[instance] ? { reviewed: reviewed.modules[instance] } : {}), ...(current.modules[instance] ? { current: current.modules[instance] } : {}) }));
    const partial = Object.keys(reviewed.objects).length < reviewed.objectCount;
    const changed = [];
    const removed = [];
    for (const [key, digest] of Object.entries(reviewed.objects)) {
        const now = current.objects[key];
        if (now === undefined)
            removed.push(key);
        else if (now !== digest)
            changed.push(key);
    }
    // With a partial record, an object not listed may have been reviewed: it is not called added.
    const added = partial ? [] : Object.keys(current.objects).filter((key) => !(key in reviewed.objects));
    return { modules, changed, added, removed, partial };
}
const LISTED = 10;
function reviewed_list(keys) {
    const shown = keys.slice(0, LISTED).join(', ');
    return keys.length > LISTED ? `${shown} and ${keys.length - LISTED} more` : shown;
}
function moduleText(module) {
    if (!module)
        return 'none';
    const digest = module.digest.replace(/^sha256:/, '').slice(0, 12);
    return `${module.url}:${module.version}${digest ? ` (sha256:${digest})` : ''}`;
}
/** What changed, in one sentence: modules (with their digests), then objects. */
function describeDifference(difference) {
    const parts = [];
    for (const module of difference.modules) {
        if (!module.reviewed)
            parts.push(`instance ${module.instance} is new (module ${moduleText(module.current)})`);
        else if (!module.current)
            parts.push(`instance ${module.instance} was removed`);
        else
            parts.push(`module of instance ${module.instance}: reviewed ${moduleText(module.reviewed)}, now ${moduleText(module.current)}`);
    }
    if (difference.changed.length > 0)
        parts.push(`objects changed: ${reviewed_list(difference.changed)}`);
    if (difference.added.length > 0)
        parts.push(`objects added: ${reviewed_list(difference.added)}`);
    if (difference.removed.length > 0)
        parts.push(`objects removed: ${reviewed_list(difference.removed)}`);
    if (difference.partial)
        parts.push('objects the review record did not list one by one (it was shortened to fit the comment) may differ too');
    if (parts.length === 0)
        parts.push('the objects differ');
    return parts.join('; ');
}
/** The desired state of a cluster's build (session.ts): every instance's module and objects. */
function desiredOfBuild(instances) {
    return desiredState(instances.map((instance) => ({ name: instance.name, module: moduleInfo(instance), objects: instance.built.sets.flatMap((set) => set.objects) })));
}
/** The cluster's entry with its desired state, when it was computed. */
function withDesired(entry, desired) {
    return desired ? { ...entry, desired } : entry;
}

;// CONCATENATED MODULE: ./src/fleet/run.ts
const ROLLOUT_STRATEGIES = ['sequential', 'waves'];
const defaultFleetOptions = {
    force: false,
    overwriteOwnership: false,
    wait: true,
    timeoutMs: 5 * 60_000,
    prune: true,
    pruneRemovedInstances: true,
    concurrency: 4,
    strategy: 'sequential',
    maxParallel: 4,
};
/** Collects one cluster's lines while clusters run at once, to print them together. */
class BufferedLog {
    lines = [];
    line(text) {
        this.lines.push(text);
    }
    flushInto(log, title) {
        log.startGroup(title);
        for (const text of this.lines)
            log.line(text);
        log.endGroup();
    }
}
// ---- Time limits and cancellation
// The wait for one cluster's work is bounded by a deadline. The work is not cancelled (a
// request already sent stays sent); the run stops waiting for it, reports the cluster as
// failed, and goes on to publish what it has. The action's process ends after publishing,
// which also ends any work still in flight. A cancellation is one more way the run stops:
// the same checks before each cluster (`runStopped`), and the same bounded wait for a
// cluster's work (`withinDeadline`), shortened to CANCEL_GRACE_MS from the cancellation.
/** How long past its own time limit a cluster is waited for (its waits end by the limit themselves). */
const CLUSTER_GRACE_MS = 2_000;
/**
 * How long a cluster's work is waited for once the run is cancelled: its object in flight,
 * its records and its log, well inside the 7.5 s GitHub leaves between SIGINT and SIGTERM,
 * so that the report is published before the second signal stops the process.
 */
const CANCEL_GRACE_MS = 3_000;
/** Whether the run may start one more cluster: undefined when it may, else why not. */
function runStopped(run) {
    if (run.cancel?.aborted)
        return 'cancelled';
    if (run.deadlineAt !== undefined && Date.now() >= run.deadlineAt)
        return 'deadline';
    return undefined;
}
/**
 * `work`, or `onStop(why)` if it has not ended by `deadlineAt`, or CANCEL_GRACE_MS after
 * `cancel` aborts (whichever comes first).
 */
function withinDeadline(work, deadlineAt, onStop, cancel) {
    if (!Number.isFinite(deadlineAt) && !cancel)
        return work;
    let timer;
    let onAbort;
    const stopped = new Promise((resolve) => {
        const stopAt = (at, why) => {
            clearTimeout(timer);
            timer = setTimeout(() => resolve(onStop(why)), Math.max(0, at - Date.now()));
        };
        if (Number.isFinite(deadlineAt))
            stopAt(deadlineAt, 'deadline');
        if (!cancel)
            return;
        onAbort = () => {
            const at = Date.now() + CANCEL_GRACE_MS;
            if (at < deadlineAt)
                stopAt(at, 'cancelled');
        };
        if (cancel.aborted)
            onAbort();
        else
            cancel.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([work, stopped]).finally(() => {
        clearTimeout(timer);
        if (onAbort)
            cancel?.removeEventListener('abort', onAbort);
    });
}

;// CONCATENATED MODULE: ./src/fleet/plan.ts
// The plan: what would change on every selected cluster, computed with server-side apply
// dry-runs and nothing written. In a cluster, each instance is diffed as soon as it is
// built, while the CUE engine builds the next ones. Clusters are diffed at once (bounded); a cluster that fails
// (down, bad credentials, a CUE error in the bundle) is reported as failed while the others
// are still diffed. Clusters keep runtime order in the ChangeSet. One broken instance does
// not hide the rest: an instance that does not build (a values error, a module that cannot
// be fetched) or whose dry-run stops is listed in its place with its error, the other
// instances are still built, diffed and shown, and the cluster is failed, its error the
// first failure in bundle order (instance-failures.ts). One object that the API server
// refuses (an immutable field, an invalid value) is a `failed` change: the other objects
// and instances are still diffed and shown, and the cluster is failed. Instances that the
// bundle no longer lists follow the bundle's, as `removed` (removed-instances.ts).












async function planCluster(run, cluster, log, bundleName, builds) {
    const startedAt = Date.now();
    const connected = await connectCluster(run, cluster, (text) => log.line(text), startedAt);
    if ('failed' in connected)
        return connected.failed;
    const { session } = connected;
    try {
        const started = await startClusterBuilds(run.engine, run.evaluation, run.resolver, session, (value) => run.secrets.register(value), builds);
        const bundle = started.evaluated.bundle.name;
        bundleName.value ||= bundle;
        const { built, instances, allBuilt } = await diffWhenBuilt(run, session, cluster.name, bundle, started.evaluated.bundle.instances, started.instances, (text) => log.line(text));
        if (run.options.prune && run.options.pruneRemovedInstances) {
            // An instance that did not build still belongs to the bundle, but its objects are unknown:
            // what deleting the removed instances would do cannot be told without them.
            if (allBuilt)
                instances.push(...(await removedInstancesPlan(session.kube, bundle, built, (text) => log.line(`${logPrefix(bundle, cluster.name)} > ${text}`))));
            else
                log.line(`${logPrefix(bundle, cluster.name)} > instances removed from the bundle are not looked for: not every instance was built`);
        }
        const failure = clusterFailure(cluster.name, instances);
        if (failure) {
            // An instance's own failure was told in its place; refused objects are summed up here.
            if (!failure.told) {
                log.line(`✗ ${failure.error.message}`);
                run.onClusterError?.(cluster.name, new Error(failure.error.message));
            }
            return withIdentity(session, clusterEntry(cluster, 'failed', instances, failure.error, startedAt));
        }
        const changed = instances.some((i) => i.changes.some((c) => isChangingAction(c.action)));
        return withDesired(withIdentity(session, clusterEntry(cluster, changed ? 'changed' : 'unchanged', instances, null, startedAt)), run.recordDesired ? desiredOfBuild(built) : undefined);
    }
    catch (error) {
        log.line(`✗ ${error instanceof Error ? error.message : String(error)}`);
        run.onClusterError?.(cluster.name, error);
        return withIdentity(session, clusterEntry(cluster, 'failed', [], clusterError(error, 'diff'), startedAt));
    }
    finally {
        session.kube.close();
    }
}
/** Instances of one cluster diffed at once (each waits for its build first). */
const INSTANCE_DIFFS_AT_ONCE = 4;
/**
 * The instances' dry-run diffs, each once it is built, a few at once, while the engine
 * builds the next ones (a dry-run writes nothing, so one instance's diff never depends on
 * another's). What they tell comes once all are settled, in bundle order, as when the
 * instances were built and diffed one after the other: each instance's change lines, or
 * its failure (a build that failed, a dry-run that stopped) in its place, once. Every
 * instance is listed; `allBuilt` is false when one did not build.
 */
async function diffWhenBuilt(run, session, cluster, bundle, bundleInstances, builds, line) {
    const outcomes = await settleBounded(builds, INSTANCE_DIFFS_AT_ONCE, async (pending, index) => {
        const declared = bundleInstances[index];
        if (!declared)
            throw new Error(`cluster ${cluster}: the build of instance ${index + 1} has no instance in the bundle`);
        let instance;
        try {
            instance = await pending;
        }
        catch (error) {
            const failure = instanceStepError(error, 'build', declared.name);
            return { entry: unbuiltInstanceEntry(declared, failure), failure };
        }
        const entry = { name: instance.name, namespace: instance.namespace, module: moduleInfo(instance) };
        try {
            const { changes } = await diffInstance(session.kube, instanceInput(bundle, instance), { force: run.options.force, overwriteOwnership: run.options.overwriteOwnership });
            return { entry: { ...entry, changes }, built: instance };
        }
        catch (error) {
            if (error instanceof InstanceStepError) {
                const failure = new ClusterStepError(error.step, error, instance.name, error.object);
                return { entry: undiffedInstanceEntry(entry, failure, error.changes), failure, built: instance };
            }
            const failure = new ClusterStepError('diff', error, instance.name);
            return { entry: undiffedInstanceEntry(entry, failure, []), failure, built: instance };
        }
    });
    const built = [];
    const instances = [];
    let allBuilt = true;
    for (const outcome of outcomes) {
        if (outcome.status === 'rejected')
            throw outcome.reason;
        const { entry, failure } = outcome.value;
        for (const change of entry.changes)
            line(changeLine(bundle, cluster, entry.name, change) + (change.error ? `: ${change.error}` : ''));
        if (failure) {
            line(`✗ ${failure.message}`);
            run.onClusterError?.(cluster, failure);
        }
        if (outcome.value.built)
            built.push(outcome.value.built);
        else
            allBuilt = false;
        instances.push(entry);
    }
    return { built, instances, allBuilt };
}
/**
 * The cluster's error from its instances: the first failure in bundle order, an instance's
 * own (`told`: logged in its place already) or its refused objects' (all of the cluster's
 * refused objects summed up, failedObjects); null when nothing failed.
 */
function clusterFailure(cluster, instances) {
    for (const instance of instances) {
        if (instance.error)
            return { error: clusterErrorOfInstance(instance.name, instance.error), told: true };
        if (instance.changes.some((change) => change.action === 'failed')) {
            const error = failedObjects(cluster, instances);
            if (error)
                return { error, told: false };
        }
    }
    return null;
}
/** The cluster's error when objects failed their dry-run: each object with the server's answer. */
function failedObjects(cluster, instances) {
    const failed = instances.flatMap((instance) => instance.changes.filter((change) => change.action === 'failed').map((change) => ({ instance: instance.name, change })));
    const first = failed[0];
    if (!first)
        return null;
    const prefix = `cluster ${cluster}: `;
    const reasons = failed.map(({ instance, change }) => `instance ${instance}: ${(change.error ?? 'failed').replace(prefix, '')}`);
    const count = failed.length === 1 ? 'one object' : `${failed.length} objects`;
    const message = `${prefix}the API server refused ${count} in the dry-run (the other objects are diffed): ${reasons.join('; ')}`;
    const ref = [first.change.kind, first.change.namespace, first.change.name].filter(Boolean).join('/');
    return { step: 'diff', message, instance: first.instance, object: ref };
}
async function planFleet(run) {
    const clusters = selectClusters(run.evaluation.runtime, run.selector);
    const bundleName = { value: '' };
    const builds = new InstanceBuilds(run.engine);
    run.log.line(`diffing ${clusters.length} cluster(s), ${Math.min(run.options.concurrency, clusters.length)} at a time`);
    const results = await mapBounded(clusters, run.options.concurrency, async (cluster) => {
        const log = new BufferedLog();
        const startedAt = Date.now();
        const entry = await withinDeadline(planCluster(run, cluster, log, bundleName, builds), run.deadlineAt ?? Infinity, () => clusterEntry(cluster, 'failed', [], { step: 'deadline', message: `the run passed its deadline while cluster ${cluster.name} was being diffed` }, startedAt));
        log.flushInto(run.log, `cluster ${cluster.name} (${cluster.group}): ${entry.status}`);
        return entry;
    });
    return { format: CHANGESET_FORMAT, bundle: bundleName.value, mode: 'diff', clusters: results };
}

;// CONCATENATED MODULE: ./src/fleet/waves.ts





/** The consecutive clusters of one group, in the order given (runtime order). */
function splitIntoWaves(clusters) {
    const waves = [];
    for (const cluster of clusters) {
        const last = waves[waves.length - 1];
        if (last && last.group === cluster.group)
            last.clusters.push(cluster);
        else
            waves.push({ group: cluster.group, clusters: [cluster] });
    }
    return waves;
}
/** The entry of a cluster that the run's deadline, or its cancellation, kept from starting. */
function stoppedEntry(cluster, stop, cancelled) {
    if (stop === 'cancelled') {
        const message = `${cancelled?.message ?? 'the run was cancelled'} before cluster ${cluster.name} was started; nothing was applied to it`;
        return clusterEntry(cluster, 'failed', [], { step: CANCELLED_STEP, interrupted: 'start', message }, Date.now());
    }
    return clusterEntry(cluster, 'failed', [], { step: 'deadline', message: `the run passed its deadline before reaching cluster ${cluster.name}; nothing was applied to it` }, Date.now());
}
async function rollOutWaves(clusters, options, rollOut) {
    if (!Number.isInteger(options.maxParallel) || options.maxParallel < 1) {
        throw new Error(`rollout waves: maxParallel must be a whole number of clusters, 1 or more, not ${options.maxParallel}`);
    }
    const waves = splitIntoWaves(clusters);
    const entries = [];
    let stopped = false;
    let stoppedIn;
    for (const [index, wave] of waves.entries()) {
        if (stopped) {
            entries.push(...wave.clusters.map(skippedEntry));
            continue;
        }
        const parallel = Math.min(options.maxParallel, wave.clusters.length);
        options.log.line(`wave ${index + 1} of ${waves.length}: group ${wave.group}, ${wave.clusters.length} cluster(s), ${parallel} at a time`);
        const results = await mapBounded(wave.clusters, options.maxParallel, async (cluster) => {
            // A cluster that waited for a free slot does not start once another one of its wave failed.
            if (stopped)
                return skippedEntry(cluster);
            const stop = runStopped(options);
            if (stop) {
                stopped = true;
                return stoppedEntry(cluster, stop, (0,cancellation/* cancellationOf */.zg)(options.cancel));
            }
            const log = new BufferedLog();
            let status = 'error';
            try {
                const entry = await rollOut(cluster, (text) => log.line(text));
                status = entry.status;
                return entry;
            }
            finally {
                if (status !== 'applied')
                    stopped = true;
                log.flushInto(options.log, `cluster ${cluster.name} (${cluster.group}): ${status}`);
            }
        });
        entries.push(...results);
        if (stopped)
            stoppedIn ??= wave;
    }
    if (stoppedIn) {
        const failed = entries.filter((entry) => entry.status === 'failed').map((entry) => entry.name);
        const skipped = entries.filter((entry) => entry.status === 'skipped').map((entry) => entry.name);
        options.log.line(`rollout stopped in the wave of group ${stoppedIn.group}: failed ${failed.join(', ')}; not reached: ${skipped.length > 0 ? skipped.join(', ') : 'none'}`);
    }
    return entries;
}

;// CONCATENATED MODULE: ./src/fleet/rollout.ts
// The rollout: apply the bundle cluster by cluster in runtime order (staging before
// production), stop at the first failure, and list the clusters not reached. Nothing is
// rolled back; a failed cluster says which step failed and what was already applied. A
// cluster with an instance that does not build is applied nothing (instance-failures.ts).
// `timeoutMs` bounds each cluster as a whole (connect, build, every instance's waits),
// not each instance. With prune, instances the bundle no longer lists are deleted last.
// With `strategy: waves` the clusters of one group are applied at once (waves.ts).
// A cancelled run (`run.cancel`) stops as at its deadline: no cluster, instance or object
// is started after it; the cluster in flight writes the records of what it applied
// (../kube/instance-apply.ts) and is reported `failed` at step `cancelled`, with the step it
// was in (`interrupted`); the clusters after it are not reached.














/** The run was cancelled while this cluster's work was at `step` (and instance, object). */
class ClusterCancelled extends Error {
    step;
    instance;
    object;
    name = 'ClusterCancelled';
    constructor(step, message, instance, object) {
        super(message);
        this.step = step;
        this.instance = instance;
        this.object = object;
    }
}
/** Throws ClusterCancelled when the run is cancelled: called before each step that would start something. */
function stopIfCancelled(run, cluster, step, instance) {
    const cancelled = run.cancel?.aborted ? ((0,cancellation/* cancellationOf */.zg)(run.cancel) ?? new Error('the run was cancelled')) : undefined;
    if (!cancelled)
        return;
    const before = instance ? `before instance ${instance}` : `at ${step}`;
    throw new ClusterCancelled(step, `cluster ${cluster.name}: ${cancelled.message} ${before}; nothing more was applied to the cluster`, instance);
}
async function rollOutCluster(run, cluster, line, bundleName, builds) {
    const startedAt = Date.now();
    // One time limit for the whole cluster, ending by the run's deadline: each instance gets what is left of it.
    const deadline = Math.min(startedAt + run.options.timeoutMs, run.deadlineAt ?? Infinity);
    const connected = await connectCluster(run, cluster, line, startedAt, 'apply');
    if ('failed' in connected)
        return connected.failed;
    const { session } = connected;
    const instances = [];
    let desired;
    try {
        stopIfCancelled(run, cluster, 'connect');
        const started = await startClusterBuilds(run.engine, run.evaluation, run.resolver, session, (value) => run.secrets.register(value), builds);
        const bundle = started.evaluated.bundle.name;
        bundleName.value ||= bundle;
        // All or nothing: an instance that does not build fails the cluster before anything is applied (instance-failures.ts).
        const build = { evaluated: started.evaluated, instances: await builtOrNothing(cluster.name, started, instances, line) };
        stopIfCancelled(run, cluster, 'build');
        // What was reviewed is compared before anything is written (reviewed.ts; the action's `reviewed` input).
        if (run.beforeApply || run.recordDesired) {
            desired = desiredOfBuild(build.instances);
            try {
                run.beforeApply?.(cluster, bundle, desired);
            }
            catch (error) {
                throw new ClusterStepError('review', error);
            }
        }
        // As Timoni, every instance's ownership is checked before any instance is applied.
        if (!run.options.overwriteOwnership) {
            try {
                await assertOwnership(session.kube, bundle, build.instances);
            }
            catch (error) {
                throw new ClusterStepError('ownership', error);
            }
        }
        for (const instance of build.instances) {
            stopIfCancelled(run, cluster, 'apply', instance.name);
            line(`${logPrefix(bundle, cluster.name, instance.name)} > applying module ${instance.module.name} version ${instance.module.version}`);
            try {
                const result = await applyInstance(session.kube, instanceInput(bundle, instance), {
                    force: run.options.force,
                    overwriteOwnership: run.options.overwriteOwnership,
                    wait: run.options.wait,
                    timeoutMs: run.options.timeoutMs,
                    deadline,
                    prune: run.options.prune,
                    ...(run.cancel ? { signal: run.cancel } : {}),
                    log: (text) => line(`${logPrefix(bundle, cluster.name, instance.name)} > ${text}`),
                });
                instances.push({ name: instance.name, namespace: instance.namespace, module: moduleInfo(instance), changes: withReadiness(result.changes, result.readiness) });
            }
            catch (error) {
                if (error instanceof InstanceCancelledError) {
                    instances.push({ name: instance.name, namespace: instance.namespace, module: moduleInfo(instance), changes: withReadiness(error.changes, error.readiness) });
                    throw new ClusterCancelled(error.step, error.message, instance.name, error.object);
                }
                if (error instanceof InstanceStepError) {
                    instances.push({ name: instance.name, namespace: instance.namespace, module: moduleInfo(instance), changes: error.changes });
                    throw new ClusterStepError(error.step, error, instance.name, error.object);
                }
                throw new ClusterStepError('apply', error, instance.name);
            }
        }
        // Instances the bundle no longer lists go last, once every listed instance is applied
        // (an object moved to a listed instance has its new owner's labels by then, and stays).
        if (run.options.prune && run.options.pruneRemovedInstances) {
            stopIfCancelled(run, cluster, 'prune');
            await removedInstancesApply(session.kube, bundle, build.instances, { wait: run.options.wait, timeoutMs: run.options.timeoutMs, deadline, log: (text) => line(`${logPrefix(bundle, cluster.name)} > ${text}`) }, instances);
        }
        return withDesired(withIdentity(session, clusterEntry(cluster, 'applied', instances, null, startedAt)), desired);
    }
    catch (error) {
        if (error instanceof ClusterCancelled) {
            line(`⏹ ${error.message}`);
            const cancelled = { step: CANCELLED_STEP, interrupted: error.step, message: error.message, ...(error.instance ? { instance: error.instance } : {}), ...(error.object ? { object: error.object } : {}) };
            return withDesired(withIdentity(session, clusterEntry(cluster, 'failed', instances, cancelled, startedAt)), desired);
        }
        line(`✗ ${error instanceof Error ? error.message : String(error)}`);
        run.onClusterError?.(cluster.name, error);
        return withDesired(withIdentity(session, clusterEntry(cluster, 'failed', instances, clusterError(error, 'apply'), startedAt)), desired);
    }
    finally {
        session.kube.close();
    }
}
/** One cluster's rollout, waited for until its time limit (and the run's deadline) plus a grace. */
function rollOutWithinLimit(run, cluster, line, bundleName, builds) {
    const startedAt = Date.now();
    const limit = Math.min(startedAt + run.options.timeoutMs, run.deadlineAt ?? Infinity);
    return withinDeadline(rollOutCluster(run, cluster, line, bundleName, builds), limit + CLUSTER_GRACE_MS, (why) => why === 'cancelled'
        ? clusterEntry(cluster, 'failed', [], { step: CANCELLED_STEP, interrupted: 'apply', message: `cluster ${cluster.name}: ${(0,cancellation/* cancellationOf */.zg)(run.cancel)?.message ?? 'the run was cancelled'}, and its work in flight did not end within the grace given to it; objects may have been applied in part and Timoni's instance record not written for them` }, startedAt)
        : clusterEntry(cluster, 'failed', [], { step: 'timeout', message: `cluster ${cluster.name} did not finish within its time limit; objects may have been applied in part (an apply already sent is not undone)` }, startedAt), run.cancel);
}
/** Each applied object's readiness result, matched by kind, namespace and name. */
function withReadiness(changes, readiness) {
    const key = (kind, namespace, name) => `${kind}/${namespace ?? ''}/${name}`;
    const byObject = new Map(readiness.map((r) => [key(r.object.kind, r.object.namespace, r.object.name), r]));
    return changes.map((change) => {
        const found = byObject.get(key(change.kind, change.namespace, change.name));
        return found ? { ...change, readiness: { status: found.status, message: found.message } } : change;
    });
}
async function rollOutFleet(run) {
    const clusters = selectClusters(run.evaluation.runtime, run.selector);
    const bundleName = { value: '' };
    const builds = new InstanceBuilds(run.engine);
    // A bundle error is told once, before the first cluster's log group opens (session.ts).
    await bundleErrorOnce(run);
    if (run.options.strategy === 'waves') {
        const entries = await rollOutWaves(clusters, { maxParallel: run.options.maxParallel, log: run.log, deadlineAt: run.deadlineAt, cancel: run.cancel }, (cluster, line) => rollOutWithinLimit(run, cluster, line, bundleName, builds));
        logCancellation(run, entries);
        return { format: CHANGESET_FORMAT, bundle: bundleName.value, mode: 'apply', clusters: entries };
    }
    const entries = [];
    let failed = false;
    for (const cluster of clusters) {
        if (failed) {
            entries.push(skippedEntry(cluster));
            continue;
        }
        const stop = runStopped(run);
        if (stop) {
            entries.push(stoppedEntry(cluster, stop, (0,cancellation/* cancellationOf */.zg)(run.cancel)));
            failed = true;
            continue;
        }
        run.log.startGroup(`cluster ${cluster.name} (${cluster.group})`);
        const entry = await rollOutWithinLimit(run, cluster, (text) => run.log.line(text), bundleName, builds);
        run.log.endGroup();
        entries.push(entry);
        failed = entry.status === 'failed';
    }
    const skipped = entries.filter((e) => e.status === 'skipped').map((e) => e.name);
    if (skipped.length > 0)
        run.log.line(`rollout stopped at cluster ${entries.find((e) => e.status === 'failed')?.name}; not reached: ${skipped.join(', ')}`);
    logCancellation(run, entries);
    return { format: CHANGESET_FORMAT, bundle: bundleName.value, mode: 'apply', clusters: entries };
}
/**
 * The closing line of a cancelled rollout: the clusters applied, the one(s) interrupted and
 * where (instance, step, object), the ones not reached (a cluster the cancellation came
 * before is `failed` at `cancelled` in the ChangeSet, with `interrupted: start`, and counts here as not reached).
 */
function cancellationLine(entries) {
    const cancelled = entries.filter(isCancelled);
    if (cancelled.length === 0)
        return undefined;
    const notStarted = (entry) => isCancelled(entry) && entry.error?.interrupted === 'start';
    const where = (entry) => {
        const error = entry.error;
        return `${entry.name} (${[error?.instance ? `instance ${error.instance}` : '', `step ${error?.interrupted ?? 'unknown'}`, error?.object ?? ''].filter(Boolean).join(', ')})`;
    };
    const list = (items) => (items.length > 0 ? items.join(', ') : 'none');
    const applied = entries.filter((entry) => entry.status === 'applied').map((entry) => entry.name);
    const interrupted = cancelled.filter((entry) => !notStarted(entry)).map(where);
    const failed = entries.filter((entry) => entry.status === 'failed' && !isCancelled(entry)).map((entry) => entry.name);
    const unreached = entries.filter((entry) => entry.status === 'skipped' || notStarted(entry)).map((entry) => entry.name);
    return `rollout cancelled: applied ${list(applied)}; interrupted ${list(interrupted)}${failed.length > 0 ? `; failed ${failed.join(', ')}` : ''}; not reached ${list(unreached)}`;
}
function logCancellation(run, entries) {
    const line = cancellationLine(entries);
    if (line)
        run.log.line(line);
}

;// CONCATENATED MODULE: ./src/fleet/status.ts
// Status and delete across the fleet: for each selected cluster, in runtime order, the
// bundle's instances as Timoni stores them (status), or their removal, newest instance
// first (delete). The bundle's name comes from evaluating it for that cluster.
//
// Each cluster is connected as a plan connects it (session.ts `connectCluster`), so its
// identity is checked before anything is read from it or deleted: a context that reaches
// the cluster recorded under another runtime name fails that cluster (step `identity`,
// the message naming both names) before the bundle is evaluated (its runtime value queries
// read the cluster) and before any instance is listed. Neither command writes the record:
// only an apply records a cluster or re-pins it. A re-pinned runtime cluster
// (`--repin-cluster`) is read or deleted from as that name, its record left as it is.





/**
 * The bundle's name for a cluster that was not reached (or was refused), for its error line:
 * the bundle evaluated with no access to the cluster; '' when it needs the cluster (a
 * runtime value query) to evaluate. Only the name is used: nothing of it is printed else.
 */
async function bundleNameWithoutCluster(run, cluster) {
    const readObject = () => Promise.reject(new Error(`cluster ${cluster.name} was not reached`));
    try {
        return (await evaluateForCluster(run.engine, { ...run.evaluation, readObject }, cluster)).bundle.name;
    }
    catch {
        return '';
    }
}
async function eachCluster(run, work, stopAtFailure) {
    const results = [];
    for (const cluster of selectClusters(run.evaluation.runtime, run.selector)) {
        // Connected and its identity checked, nothing written (the purpose of a diff); a refusal is logged there.
        const connected = await connectCluster(run, cluster, (text) => run.log.line(text), Date.now());
        if ('failed' in connected) {
            const error = connected.failed.error;
            results.push({ cluster, bundle: await bundleNameWithoutCluster(run, cluster), error: error?.message ?? `cluster ${cluster.name} failed`, ...(error ? { step: error.step } : {}) });
            if (stopAtFailure)
                break;
            continue;
        }
        const { session } = connected;
        let bundle = '';
        try {
            const evaluated = await evaluateForCluster(run.engine, { ...run.evaluation, readObject: session.readObject }, cluster);
            bundle = evaluated.bundle.name;
            results.push({ cluster, bundle, result: await work(session, bundle) });
        }
        catch (error) {
            run.onClusterError?.(cluster.name, error);
            results.push({ cluster, bundle, error: error instanceof Error ? error.message : String(error) });
            if (stopAtFailure)
                break;
        }
        finally {
            session.kube.close();
        }
    }
    return results;
}
function fleetStatus(run) {
    return eachCluster(run, (session, bundle) => bundleStatus(session.kube, bundle), false);
}
function fleetDelete(run) {
    return eachCluster(run, (session, bundle) => deleteBundleInstances(session.kube, bundle, { wait: run.options.wait, timeoutMs: run.options.timeoutMs, log: (line) => run.log.line(`${logPrefix(bundle, session.runtimeCluster.name)} > ${line}`) }), true);
}

;// CONCATENATED MODULE: ./src/fleet/fleet-state.ts
// The state of the fleet: for every selected cluster and every instance of the bundle, one
// of Banzai Pipeline's states, with what it rests on (the module the cluster stores and the
// one the bundle asks for, the last apply, the readiness of the stored objects):
//
// - `unknown`: the cluster cannot be reached (or its identity is refused, or the bundle
//   cannot be evaluated or built for it, or reading the instance failed): the reason says which;
// - `not installed`: the cluster stores no instance (Timoni's instance Secret) of that name
//   for this bundle;
// - `stale`: the stored module version or digest is not the bundle's, or a dry-run diff of
//   the instance (the plan's own, `diffInstance`) finds objects that an apply would change
//   (drifted); an instance the cluster stores that the bundle no longer lists is stale too;
// - `failed`: in sync, but an object of the stored inventory is not Current (kstatus);
// - `deployed`: in sync and every object Current.
//
// Clusters are read at once (bounded by `concurrency`), instances in bundle order; rows keep
// runtime order. Nothing is written.













const INSTANCE_STATES = ['deployed', 'stale', 'not installed', 'failed', 'unknown'];
/** Version of the `status -o json` document and of the action's `status` output. */
const FLEET_STATE_FORMAT = 1;
/** A few object references, then how many more. */
function listed(items, shown = 3) {
    const head = items.slice(0, shown).join(', ');
    return items.length > shown ? `${head} and ${items.length - shown} more` : head;
}
function fleet_state_moduleText(module) {
    const digest = module.digest && module.digest !== 'unknown' ? ` (${module.digest.replace(/^(sha256:[0-9a-f]{12})[0-9a-f]*$/, '$1')})` : '';
    return `${module.version}${digest}`;
}
/** True when the stored module is another than the bundle's: another version, or another known digest. */
function moduleDiffers(stored, desired) {
    const known = (digest) => digest !== '' && digest !== 'unknown';
    if (known(stored.digest) && known(desired.digest) && stored.digest !== desired.digest)
        return true;
    return stored.version !== desired.version;
}
function readinessOf(status) {
    const notReady = status.objects.filter((o) => o.status !== 'Current').map((o) => `${formatRef(o.object)} ${o.status}${o.message ? `: ${o.message}` : ''}`);
    return { ready: status.objects.length - notReady.length, total: status.objects.length, notReady };
}
/** What an apply would change, as `Deployment/apps/web configured`; failed dry-runs with their error. */
function driftOf(changes) {
    return changes
        .filter((c) => isChangingAction(c.action) || c.action === 'failed')
        .map((c) => `${formatRef({ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name })} ${c.action}${c.error ? ` (${c.error})` : ''}`);
}
const message = (error) => (error instanceof Error ? error.message : String(error));
function row(base, fields) {
    return { ...base, module: null, desired: null, lastApplied: null, readiness: null, reason: '', ...fields };
}
function fleet_state_storedModule(stored) {
    const { module } = stored.instance;
    return { url: module.repository, version: module.version, digest: module.digest };
}
/** One instance of the bundle on a reachable cluster. */
async function instanceRow(run, session, bundle, instance, base) {
    const desired = moduleInfo(instance);
    const fields = { instance: instance.name, namespace: instance.namespace, desired };
    let stored;
    try {
        stored = await inventory_store_readInstance(session.kube, instance.name, instance.namespace);
    }
    catch (error) {
        return row(base, { ...fields, state: 'unknown', reason: `cannot read the instance: ${message(error)}` });
    }
    if (!stored)
        return row(base, { ...fields, state: 'not installed', reason: `no instance ${instance.name} in namespace ${instance.namespace}` });
    const owner = stored.instance.labels?.[bundleNameLabel] ?? '';
    if (owner !== bundle) {
        const whose = owner ? `bundle ${owner}` : 'no bundle';
        return row(base, { ...fields, state: 'not installed', module: fleet_state_storedModule(stored), reason: `instance ${instance.name} in namespace ${instance.namespace} belongs to ${whose}` });
    }
    const module = fleet_state_storedModule(stored);
    let status;
    try {
        status = await instanceStatus(session.kube, stored);
    }
    catch (error) {
        return row(base, { ...fields, state: 'unknown', module, lastApplied: stored.instance.lastTransitionTime ?? null, reason: `cannot read the objects' readiness: ${message(error)}` });
    }
    const known = { ...fields, module, lastApplied: status.lastApplied || null, readiness: readinessOf(status) };
    if (moduleDiffers(module, desired)) {
        return row(base, { ...known, state: 'stale', reason: `module ${fleet_state_moduleText(module)} applied, the bundle asks for ${fleet_state_moduleText(desired)}` });
    }
    let changes;
    try {
        // Ownership was checked above; the plan's diff otherwise (prune as an apply would).
        ({ changes } = await diffInstance(session.kube, instanceInput(bundle, instance), { force: run.options.force, overwriteOwnership: true, prune: run.options.prune }));
    }
    catch (error) {
        return row(base, { ...known, state: 'unknown', reason: `cannot diff the instance: ${message(error)}` });
    }
    const drift = driftOf(changes);
    if (drift.length > 0)
        return row(base, { ...known, state: 'stale', reason: `drifted: ${listed(drift)}` });
    if (status.pending)
        return row(base, { ...known, state: 'stale', reason: 'an upgrade was started and did not finish' });
    if (known.readiness.notReady.length > 0)
        return row(base, { ...known, state: 'failed', reason: `not ready: ${listed(known.readiness.notReady)}` });
    return row(base, { ...known, state: 'deployed' });
}
/** The instance names of a cluster that could not be reached, when the bundle evaluates without it. */
async function unreachableRows(run, cluster, base, reason, bundleName) {
    try {
        const readObject = () => Promise.reject(new Error(`cluster ${cluster.name} cannot be reached`));
        const evaluated = await evaluateForCluster(run.engine, { ...run.evaluation, readObject }, cluster);
        bundleName.value ||= evaluated.bundle.name;
        if (evaluated.bundle.instances.length > 0) {
            return evaluated.bundle.instances.map((i) => row(base, { instance: i.name, namespace: i.namespace, state: 'unknown', reason }));
        }
    }
    catch {
        // The bundle needs the cluster (a runtime value query) to name its instances: one row says so.
    }
    return [row(base, { instance: '', namespace: '', state: 'unknown', reason })];
}
async function clusterRows(run, cluster, builds, bundleName) {
    const base = { cluster: cluster.name, group: cluster.group };
    // Connected as a plan connects (the cluster identity check included), nothing written.
    const connected = await connectCluster(run, cluster, (text) => run.log.line(text), Date.now());
    if ('failed' in connected) {
        const error = connected.failed.error;
        const reason = !error ? `cluster ${cluster.name} failed` : error.step === 'connect' ? `cannot reach cluster ${cluster.name}: ${error.message}` : `${error.step}: ${error.message}`;
        return unreachableRows(run, cluster, base, reason, bundleName);
    }
    const { session } = connected;
    try {
        const build = await buildForCluster(run.engine, run.evaluation, run.resolver, session, (value) => run.secrets.register(value), builds);
        const bundle = build.evaluated.bundle.name;
        bundleName.value ||= bundle;
        const rows = [];
        for (const instance of build.instances)
            rows.push(await instanceRow(run, session, bundle, instance, base));
        rows.push(...(await removedRows(run, session, bundle, build.instances, base)));
        return rows;
    }
    catch (error) {
        run.onClusterError?.(cluster.name, error);
        const step = error instanceof ClusterStepError ? `${error.step}: ` : '';
        const instance = error instanceof ClusterStepError ? (error.instance ?? '') : '';
        return [row(base, { instance, namespace: '', state: 'unknown', reason: `${step}${message(error)}` })];
    }
    finally {
        session.kube.close();
    }
}
/** The instances the cluster stores under the bundle's label that the bundle no longer lists: stale, oldest first. */
async function removedRows(run, session, bundle, listed, base) {
    const rows = [];
    try {
        const scan = await findRemovedInstances(session.kube, bundle, listed);
        for (const stored of [...scan.removed].reverse()) {
            const status = await instanceStatus(session.kube, stored);
            rows.push(row(base, {
                instance: stored.instance.name,
                namespace: stored.instance.namespace,
                state: 'stale',
                module: fleet_state_storedModule(stored),
                lastApplied: status.lastApplied || null,
                readiness: readinessOf(status),
                reason: run.options.pruneRemovedInstances ? 'no longer in the bundle: an apply deletes it' : 'no longer in the bundle (kept: removed instances are not pruned)',
            }));
        }
    }
    catch (error) {
        rows.push(row(base, { instance: '', namespace: '', state: 'unknown', reason: `cannot look for instances the bundle no longer lists: ${message(error)}` }));
    }
    return rows;
}
function countStates(rows) {
    const counts = Object.fromEntries(INSTANCE_STATES.map((state) => [state, 0]));
    for (const r of rows)
        counts[r.state] += 1;
    return counts;
}
/** The state of every selected cluster x instance of the bundle. */
async function fleetState(run) {
    const clusters = selectClusters(run.evaluation.runtime, run.selector);
    const builds = new InstanceBuilds(run.engine);
    const bundleName = { value: '' };
    run.log.line(`reading the state of ${clusters.length} cluster(s), ${Math.min(run.options.concurrency, clusters.length)} at a time`);
    const perCluster = await mapBounded(clusters, run.options.concurrency, (cluster) => withinDeadline(clusterRows(run, cluster, builds, bundleName), run.deadlineAt ?? Infinity, () => [
        row({ cluster: cluster.name, group: cluster.group }, { instance: '', namespace: '', state: 'unknown', reason: `the run passed its deadline while cluster ${cluster.name} was being read` }),
    ]));
    const instances = perCluster.flat();
    return { format: FLEET_STATE_FORMAT, bundle: bundleName.value, instances, counts: countStates(instances) };
}

;// CONCATENATED MODULE: ./src/module/oci/errors.ts
// The one error type of the OCI client. Its message names the module URL and what went
// wrong; `code` lets callers and tests tell the cases apart. Messages are built from
// values that are not secrets, and pass through the secret redactor before being thrown.
class OciError extends Error {
    code;
    /** The module URL (`oci://host/repo:tag` or `@digest`) the error concerns. */
    url;
    /** The last HTTP status, when a response was received. */
    status;
    constructor(code, url, message, status) {
        super(`${url}: ${message}`);
        this.name = 'OciError';
        this.code = code;
        this.url = url;
        this.status = status;
    }
}

;// CONCATENATED MODULE: ./src/module/oci/reference.ts
// Parses `oci://host[:port]/repo` module URLs with a tag or digest, as Timoni reads them
// (internal/oci/url.go and go-containerregistry's name package): the first path segment
// is a registry when it holds a `.` or `:` or is `localhost`, otherwise the reference is
// on Docker Hub, whose single-segment names get the `library/` prefix. Registries that
// look local (loopback, localhost, *.local, RFC 1918 addresses) are spoken to over plain
// HTTP, as go-containerregistry decides; everything else over HTTPS.

const OCI_PREFIX = 'oci://';
const LATEST = 'latest';
/** Docker Hub's name as references write it, and the host that serves its API. */
const DOCKER_HUB_NAME = 'index.docker.io';
const DOCKER_HUB_API = 'registry-1.docker.io';
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const REPOSITORY_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
/** `oci://<registry>/<repository>`, as Timoni records a module's repository. */
function repositoryUrl(ref) {
    return `${OCI_PREFIX}${ref.registry}/${ref.repository}`;
}
/** `oci://<registry>/<repository>:<tag>` or `...@<digest>`, for messages. */
function referenceUrl(ref) {
    return `${repositoryUrl(ref)}${ref.digest ? `@${ref.digest}` : `:${ref.tag ?? LATEST}`}`;
}
/** The tag or digest that names the manifest in `/v2/<repo>/manifests/<it>`. */
function manifestIdentifier(ref) {
    return ref.digest ?? ref.tag ?? LATEST;
}
/**
 * go-containerregistry's rule for registries spoken to over plain HTTP (name.Registry.Scheme),
 * except that any 127.0.0.0/8 address counts as loopback, not only 127.0.0.1.
 */
function isLocalRegistry(registry) {
    const host = registry.startsWith('[') ? registry.slice(1, registry.indexOf(']')) : registry.replace(/:\d+$/, '');
    // go-containerregistry: `localhost:<port>` (bare `localhost` stays https), *.local, *.localhost.
    if (registry.startsWith('localhost:') || host.endsWith('.localhost') || host.endsWith('.local'))
        return true;
    if (host === '::1' || /^127\./.test(host))
        return true;
    const octets = host.split('.').map(Number);
    if (octets.length === 4 && octets.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
        const [a = 0, b = 0] = octets;
        return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
    }
    return false;
}
function invalid(url, reason) {
    return new OciError('invalid-reference', url, `invalid module URL: ${reason} (expected 'oci://<domain>/<org>/<repo>')`);
}
/**
 * Parses `oci://host[:port]/repo[:tag][@sha256:...]`. `insecure` forces plain HTTP, as
 * Timoni's `--registry-insecure`.
 */
function parseReference(url, options = {}) {
    if (!url.startsWith(OCI_PREFIX))
        throw invalid(url, `it does not start with ${OCI_PREFIX}`);
    let rest = url.slice(OCI_PREFIX.length);
    let digest;
    const at = rest.indexOf('@');
    if (at !== -1) {
        digest = rest.slice(at + 1);
        rest = rest.slice(0, at);
        if (!DIGEST.test(digest)) {
            throw invalid(url, /^[a-z0-9]+:/.test(digest) && !digest.startsWith('sha256:') ? `unsupported digest algorithm in ${JSON.stringify(digest)}` : `malformed digest ${JSON.stringify(digest)}`);
        }
    }
    let tag;
    const lastSlash = rest.lastIndexOf('/');
    const colon = rest.indexOf(':', lastSlash + 1);
    if (colon !== -1) {
        tag = rest.slice(colon + 1);
        rest = rest.slice(0, colon);
        if (!TAG.test(tag))
            throw invalid(url, `invalid tag ${JSON.stringify(tag)}`);
    }
    if (rest === '')
        throw invalid(url, 'no repository');
    const firstSlash = rest.indexOf('/');
    const first = firstSlash === -1 ? '' : rest.slice(0, firstSlash);
    let registry;
    let repository;
    if (first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost')) {
        registry = first.toLowerCase();
        repository = rest.slice(firstSlash + 1);
        if (!/^(?:\[[0-9a-f:]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.test(registry))
            throw invalid(url, `invalid registry ${JSON.stringify(first)}`);
    }
    else {
        registry = DOCKER_HUB_NAME;
        repository = rest;
    }
    if (DOCKER_HUB_ALIASES.has(registry)) {
        registry = DOCKER_HUB_NAME;
        if (!repository.includes('/'))
            repository = `library/${repository}`;
    }
    if (repository === '' || !repository.split('/').every((part) => REPOSITORY_COMPONENT.test(part))) {
        throw invalid(url, `invalid repository ${JSON.stringify(repository)} (lowercase letters, digits and separators)`);
    }
    const apiHost = registry === DOCKER_HUB_NAME ? DOCKER_HUB_API : registry;
    const scheme = options.insecure || isLocalRegistry(registry) ? 'http' : 'https';
    return { registry, apiHost, repository, tag, digest, scheme };
}
/**
 * The reference a bundle instance pulls, as Timoni's fetcher composes it: `url:version`,
 * or `url@digest` when the version is `latest` and a digest is given. The version is a tag
 * used literally.
 */
function reference_moduleReference(url, version, digest, options = {}) {
    const base = parseReference(url, options);
    if (base.digest !== undefined || base.tag !== undefined) {
        throw invalid(url, 'the module URL must not carry a tag or digest; set `version` (and `digest`) instead');
    }
    if (digest !== undefined && digest !== '' && !DIGEST.test(digest)) {
        throw new OciError('invalid-reference', `${url}:${version}`, `invalid digest ${JSON.stringify(digest)} (expected sha256:<64 hex>)`);
    }
    const pinned = version === LATEST && digest !== undefined && digest !== '';
    if (pinned)
        return { ...base, tag: undefined, digest };
    if (!TAG.test(version))
        throw invalid(`${url}:${version}`, `invalid version ${JSON.stringify(version)}: the version is used as the tag`);
    return { ...base, tag: version };
}

;// CONCATENATED MODULE: ./src/module/oci/credentials.ts
// What the client may present to a registry, and where it came from: explicit credentials
// (`--creds`, the action's `registry-creds`), docker's `config.json` with its credential
// helpers, `GITHUB_TOKEN` for ghcr.io, or none. The `source` is a description safe to print
// ("--creds", "docker config /home/u/.docker/config.json (auths["ghcr.io"])",
// "GITHUB_TOKEN"); the values never are: every one is registered as a secret.






/** Where explicit credentials come from, as messages name them. */
const EXPLICIT_SOURCES = ['--creds', 'registry-creds'];
/** True for credentials the user gave explicitly (bound to hosts), not docker config or GITHUB_TOKEN. */
function isExplicitCredential(credential) {
    return EXPLICIT_SOURCES.some((source) => credential.source.startsWith(source));
}
/** The explicit credential for a host (`registry-creds` entry, or `--creds`), if any. */
function explicitCredentialFor(host, options) {
    if (options.hostCredentials) {
        const entry = options.hostCredentials[host.toLowerCase()];
        return entry ? parseExplicitCredentials(entry, `registry-creds (${host})`) : undefined;
    }
    return options.credentials ? parseExplicitCredentials(options.credentials) : undefined;
}
/** Reads `--creds` as Timoni does: the first `:` splits user and password; no `:` is a token. */
function parseExplicitCredentials(value, source = '--creds') {
    const colon = value.indexOf(':');
    if (colon === -1)
        return { kind: 'bearer', token: value, source };
    return { kind: 'basic', username: value.slice(0, colon), password: value.slice(colon + 1), source };
}
/** Registers the values of a credential with the redactor (and so with the caller's mask). */
function registerSecrets(credential, secrets) {
    switch (credential.kind) {
        case 'basic':
            secrets.add(credential.password);
            secrets.add(Buffer.from(`${credential.username}:${credential.password}`).toString('base64'));
            break;
        case 'bearer':
            secrets.add(credential.token);
            break;
        case 'identity':
            secrets.add(credential.refreshToken);
            break;
        case 'anonymous':
            break;
    }
}
/** A short description of a credential for messages: its source and kind, never its value. */
function describeCredential(credential) {
    if (credential.kind === 'anonymous')
        return `no credentials (${credential.source})`;
    const what = credential.kind === 'basic' ? `user "${credential.username}"` : credential.kind === 'bearer' ? 'a bearer token' : 'an identity token';
    return `${what} from ${credential.source}`;
}
/**
 * The credential for `registry`, in order: explicit `--creds`; docker `config.json`
 * (credHelpers, credsStore, auths); `GITHUB_TOKEN` for ghcr.io; otherwise anonymous.
 */
async function resolveCredential(registry, url, options, secrets) {
    let credential = explicitCredentialFor(registry, options);
    const checked = [options.hostCredentials ? `registry-creds (no entry for ${registry})` : '--creds'];
    if (!credential) {
        const found = await lookupDockerConfig(registry, options, secrets).catch((error) => {
            const message = error instanceof Error ? error.message : String(error);
            throw new OciError('credentials', url, secrets.redact(message));
        });
        checked.push(found.checked);
        credential = found.credential;
    }
    const env = options.env ?? process.env;
    if (!credential && registry === 'ghcr.io' && env.GITHUB_TOKEN) {
        credential = { kind: 'basic', username: env.GITHUB_ACTOR || 'x-access-token', password: env.GITHUB_TOKEN, source: 'GITHUB_TOKEN' };
    }
    if (registry === 'ghcr.io')
        checked.push('GITHUB_TOKEN');
    credential ??= { kind: 'anonymous', source: `none configured for ${registry}; checked ${checked.join(', ')}` };
    registerSecrets(credential, secrets);
    return credential;
}
const DOCKER_HUB_KEY = 'https://index.docker.io/v1/';
const DOCKER_HUB_HOSTS = new Set([DOCKER_HUB_NAME, 'docker.io', 'registry-1.docker.io']);
function dockerConfigPath(options) {
    const env = options.env ?? process.env;
    const dir = options.dockerConfigDir ?? (env.DOCKER_CONFIG || (0,external_node_path_namespaceObject.join)(env.HOME || (0,external_node_os_namespaceObject.homedir)(), '.docker'));
    return (0,external_node_path_namespaceObject.join)(dir, 'config.json');
}
/** `https://ghcr.io/v2/` -> `ghcr.io`; Docker Hub's names all become `index.docker.io`. */
function normaliseRegistryKey(key) {
    const host = key.replace(/^[a-z]+:\/\//i, '').split('/')[0]?.toLowerCase() ?? '';
    return DOCKER_HUB_HOSTS.has(host) ? DOCKER_HUB_NAME : host;
}
function findKey(map, registry) {
    if (!map)
        return undefined;
    const wanted = normaliseRegistryKey(registry);
    if (Object.hasOwn(map, registry))
        return registry;
    return Object.keys(map).find((key) => normaliseRegistryKey(key) === wanted);
}
function fromEntry(entry, source) {
    let username = entry.username ?? '';
    let password = entry.password ?? '';
    if (entry.auth) {
        const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon === -1)
            throw new Error(`${source}: "auth" is not base64 of user:password`);
        username = decoded.slice(0, colon);
        password = decoded.slice(colon + 1);
    }
    if (entry.identitytoken)
        return { kind: 'identity', username, refreshToken: entry.identitytoken, source };
    if (entry.registrytoken)
        return { kind: 'bearer', token: entry.registrytoken, source };
    if (username !== '' || password !== '')
        return { kind: 'basic', username, password, source };
    return undefined;
}
async function fromHelper(helper, serverUrl, origin, options, secrets) {
    const found = await runCredentialHelper(helper, serverUrl, origin, { env: options.env, timeoutMs: options.helperTimeoutMs });
    if (!found || found.secret === '')
        return undefined;
    const source = `docker-credential-${helper} (${origin})`;
    secrets.add(found.secret);
    if (found.username === '<token>')
        return { kind: 'identity', username: '', refreshToken: found.secret, source };
    return { kind: 'basic', username: found.username, password: found.secret, source };
}
async function lookupDockerConfig(registry, options, secrets) {
    const path = dockerConfigPath(options);
    const checked = `docker config ${path}`;
    let text;
    try {
        text = await (0,promises_namespaceObject.readFile)(path, 'utf8');
    }
    catch (error) {
        if (error.code === 'ENOENT')
            return { credential: undefined, checked: `${checked} (absent)` };
        throw new Error(`reading docker config ${path} failed: ${error.message}`);
    }
    let config;
    try {
        config = JSON.parse(text);
    }
    catch {
        throw new Error(`docker config ${path} is not valid JSON`);
    }
    if (typeof config !== 'object' || config === null)
        throw new Error(`docker config ${path} is not a JSON object`);
    const serverUrl = normaliseRegistryKey(registry) === DOCKER_HUB_NAME ? DOCKER_HUB_KEY : registry;
    const helperKey = findKey(config.credHelpers, registry);
    if (helperKey !== undefined && config.credHelpers) {
        const helper = config.credHelpers[helperKey] ?? '';
        const credential = await fromHelper(helper, serverUrl, `credHelpers[${JSON.stringify(helperKey)}] in ${path}`, options, secrets);
        return { credential, checked };
    }
    if (config.credsStore) {
        const credential = await fromHelper(config.credsStore, serverUrl, `credsStore in ${path}`, options, secrets);
        if (credential)
            return { credential, checked };
    }
    const authKey = findKey(config.auths, registry);
    if (authKey !== undefined && config.auths) {
        const entry = config.auths[authKey] ?? {};
        secrets.add(entry.auth);
        secrets.add(entry.password);
        secrets.add(entry.identitytoken);
        secrets.add(entry.registrytoken);
        return { credential: fromEntry(entry, `docker config ${path} (auths[${JSON.stringify(authKey)}])`), checked };
    }
    return { credential: undefined, checked };
}
const MAX_OUTPUT = 1024 * 1024;
async function runCredentialHelper(name, serverUrl, origin, options = {}) {
    const binary = `docker-credential-${name}`;
    if (!/^[A-Za-z0-9._-]+$/.test(name))
        throw new Error(`credential helper name ${JSON.stringify(name)} (${origin}) is not a plain name`);
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
        const child = (0,external_node_child_process_namespaceObject.spawn)(binary, ['get'], { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
        const stdout = [];
        const stderr = [];
        let size = 0;
        let settled = false;
        const finish = (action) => {
            if (settled)
                return;
            settled = true;
            clearTimeout(timer);
            action();
        };
        const timer = setTimeout(() => {
            child.kill('SIGKILL');
            finish(() => reject(new Error(`credential helper ${binary} (${origin}) did not answer within ${timeoutMs} ms`)));
        }, timeoutMs);
        const collect = (into) => (chunk) => {
            size += chunk.length;
            if (size > MAX_OUTPUT) {
                child.kill('SIGKILL');
                finish(() => reject(new Error(`credential helper ${binary} (${origin}) wrote more than ${MAX_OUTPUT} bytes`)));
                return;
            }
            into.push(chunk);
        };
        child.stdout.on('data', collect(stdout));
        child.stderr.on('data', collect(stderr));
        child.stdin.on('error', () => undefined); // a helper that exits without reading stdin
        child.on('error', (error) => {
            finish(() => reject(error.code === 'ENOENT'
                ? new Error(`credential helper ${binary} (${origin}) is not installed: no ${binary} in PATH`)
                : new Error(`credential helper ${binary} (${origin}) could not be started: ${error.message}`)));
        });
        child.on('close', (code, signal) => {
            const out = Buffer.concat(stdout).toString('utf8').trim();
            if (code !== 0) {
                if (/credentials not found/i.test(out)) {
                    finish(() => resolve(undefined));
                    return;
                }
                // The helper's own words are shown (first line only); the caller redacts known secrets.
                const said = (Buffer.concat(stderr).toString('utf8').trim() || out).split('\n')[0]?.slice(0, 200) ?? '';
                finish(() => reject(new Error(`credential helper ${binary} (${origin}) failed (${signal ?? `exit ${code}`})${said ? `: ${said}` : ''}`)));
                return;
            }
            try {
                const parsed = JSON.parse(out);
                if (typeof parsed.Secret !== 'string')
                    throw new Error('no Secret');
                finish(() => resolve({ username: typeof parsed.Username === 'string' ? parsed.Username : '', secret: parsed.Secret }));
            }
            catch {
                finish(() => reject(new Error(`credential helper ${binary} (${origin}) printed something that is not {"Username","Secret"} JSON`)));
            }
        });
        child.stdin.end(serverUrl);
    });
}

;// CONCATENATED MODULE: ./src/module/oci/http.ts


const transport = new ProxyTransport({ keepAlive: true, maxSockets: 16 });
const DEFAULT_TOTAL_MS = 120_000;
/** A connection-level failure (reset, refused, timeout, truncated body): worth retrying. */
class NetworkError extends Error {
    code;
    constructor(code, message) {
        super(message);
        this.name = 'NetworkError';
        this.code = code;
    }
}
/** A body larger than the caller allows: not worth retrying. */
class BodyTooLargeError extends Error {
    limit;
    constructor(limit) {
        super(`response body exceeds ${limit} bytes`);
        this.limit = limit;
        this.name = 'BodyTooLargeError';
    }
}
function describeUrl(url) {
    return `${url.origin}${url.pathname}`;
}
/** A proxy setting this client cannot use (a SOCKS proxy): not worth retrying. */
class ProxyConfigError extends Error {
    constructor(message) {
        super(message);
        this.name = 'ProxyConfigError';
    }
}
function send(url, request) {
    const proxy = proxyFromEnvironment(url, request.env ?? process.env);
    if (proxy && !isSupportedProxy(proxy)) {
        return Promise.reject(new ProxyConfigError(`${proxyVariable(url)} names ${describeProxy(proxy)} with scheme ${proxy.protocol}, which is not supported (only http:// and https:// proxies)`));
    }
    return new Promise((resolve, reject) => {
        const totalMs = request.totalMs ?? DEFAULT_TOTAL_MS;
        let response;
        const req = transport.request(url, proxy, { method: request.method ?? 'GET', headers: request.headers, signal: request.signal }, (res) => {
            response = res;
            res.once('close', () => clearTimeout(total));
            resolve(res);
        });
        const total = setTimeout(() => {
            const error = new NetworkError('ETIMEDOUT', `${describeUrl(url)} did not send its whole answer within ${totalMs} ms`);
            response?.destroy(error);
            req.destroy(error);
        }, totalMs);
        total.unref();
        req.setTimeout(request.timeoutMs, () => {
            req.destroy(new NetworkError('ETIMEDOUT', `no answer from ${describeUrl(url)} within ${request.timeoutMs} ms`));
        });
        req.once('close', () => {
            if (!response)
                clearTimeout(total);
        });
        req.on('error', (error) => {
            if (error instanceof NetworkError)
                reject(error);
            else if (error.name === 'AbortError')
                reject(error);
            else
                reject(new NetworkError(error.code ?? 'ERR_NETWORK', `${request.method ?? 'GET'} ${describeUrl(url)}: ${error.message}`));
        });
        req.end(request.body);
    });
}
/**
 * Reads the whole body, failing past `limit` bytes; a connection lost before the end is a
 * NetworkError. `onChunk` sees every chunk (for hashing).
 */
async function readBody(res, limit, onChunk) {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
        res.destroy();
        throw new BodyTooLargeError(limit);
    }
    const chunks = [];
    let size = 0;
    try {
        for await (const chunk of res) {
            size += chunk.length;
            if (size > limit) {
                res.destroy();
                throw new BodyTooLargeError(limit);
            }
            onChunk?.(chunk);
            chunks.push(chunk);
        }
    }
    catch (error) {
        if (error instanceof BodyTooLargeError || error instanceof NetworkError)
            throw error;
        const code = error.code ?? 'ECONNRESET';
        throw new NetworkError(code, `connection lost while reading the response: ${error.message}`);
    }
    if (!res.complete)
        throw new NetworkError('ECONNRESET', 'connection closed before the response was complete');
    return Buffer.concat(chunks);
}
/** Discards a body we do not need, so the connection can be reused. */
function drain(res) {
    return readBody(res, 64 * 1024).catch(() => Buffer.alloc(0));
}

;// CONCATENATED MODULE: ./src/module/oci/retry.ts
// Retries an operation on transient failures (HTTP 429 and 5xx, connection resets and
// timeouts) with exponential backoff and jitter, bounded by a number of attempts and a
// total time; `Retry-After` is honoured within the bound. After the last try the caller
// gets the last failure, and how many tries it took, to build its message.

const defaultRetryPolicy = { attempts: 5, baseDelayMs: 200, maxDelayMs: 5_000, maxElapsedMs: 60_000 };
/** A failure worth another try: a status (429, 5xx) or a network error. */
class TransientError extends Error {
    status;
    retryAfterMs;
    constructor(message, status, retryAfterMs) {
        super(message);
        this.status = status;
        this.retryAfterMs = retryAfterMs;
        this.name = 'TransientError';
    }
}
function isRetryableStatus(status) {
    return status === 429 || (status >= 500 && status !== 501 && status !== 505);
}
/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or malformed. */
function retry_parseRetryAfter(value, now = Date.now()) {
    if (value === undefined || value.trim() === '')
        return undefined;
    if (/^\d+$/.test(value.trim()))
        return Number(value.trim()) * 1000;
    const date = Date.parse(value);
    return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
function backoffDelay(policy, attempt, random = Math.random) {
    const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(exponential / 2 + (random() * exponential) / 2);
}
const retry_sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Runs `operation` until it succeeds, fails with a non-transient error (rethrown as is), or
 * the policy is exhausted: then `giveUp` builds the error to throw.
 */
async function withRetry(operation, policy, giveUp) {
    const started = Date.now();
    for (let attempt = 1;; attempt += 1) {
        try {
            return await operation(attempt);
        }
        catch (error) {
            if (!(error instanceof TransientError) && !(error instanceof NetworkError))
                throw error;
            const elapsedMs = Date.now() - started;
            const wanted = error instanceof TransientError && error.retryAfterMs !== undefined ? error.retryAfterMs : backoffDelay(policy, attempt);
            const delay = Math.min(wanted, policy.maxDelayMs);
            if (attempt >= policy.attempts || elapsedMs + delay > policy.maxElapsedMs)
                throw giveUp({ error, attempts: attempt, elapsedMs });
            await retry_sleep(delay);
        }
    }
}

;// CONCATENATED MODULE: ./src/module/oci/auth.ts
// Answers a registry's authentication challenges for one registry host, as the Docker
// token specification describes: on a Bearer challenge, fetch a token from the realm
// (with service and scope; Basic credentials when we have a user and password, an OAuth2
// refresh-token POST for identity tokens, nothing when anonymous) and cache it per scope
// until it expires; on a Basic challenge, send the user and password. Credentials are
// resolved only when a registry asks for them, so anonymous registries never see them.





const TOKEN_LIMIT = 1024 * 1024;
class RegistryAuth {
    #registry;
    #context;
    #credential;
    #challenge;
    #tokens = new Map();
    /** `registry` as references name it (for credential lookup and messages). */
    constructor(registry, context) {
        this.#registry = registry;
        this.#context = context;
    }
    /** The credential in use, once a challenge made us resolve it. */
    credential(url) {
        this.#credential ??= resolveCredential(this.#registry, url, this.#context.credentials, this.#context.secrets);
        // A failed lookup is not kept: the next request tries again.
        this.#credential.catch(() => (this.#credential = undefined));
        return this.#credential;
    }
    /** The Authorization header to send up front, when an earlier challenge told us how. */
    async current(scope, url) {
        if (!this.#challenge)
            return undefined;
        const cached = this.#tokens.get(scope);
        if (cached && cached.expiresAt > Date.now())
            return cached.header;
        return this.#answer(this.#challenge, scope, url);
    }
    /** Handles a 401: reads its challenge and returns a fresh Authorization header. */
    async challenged(wwwAuthenticate, scope, url) {
        const challenge = preferredChallenge(parseChallenges(wwwAuthenticate ?? ''));
        if (!challenge) {
            const credential = await this.credential(url);
            throw new OciError('unauthorized', url, `unauthorised (401) by ${this.#registry}, which sent no usable WWW-Authenticate challenge; tried ${describeCredential(credential)}`, 401);
        }
        this.#challenge = challenge;
        this.#tokens.delete(scope);
        return this.#answer(challenge, scope, url);
    }
    /** The error for a 401 that persists after we answered the challenge. */
    async rejected(url, status, where = '') {
        const credential = await this.credential(url);
        const what = describeCredential(credential);
        let text;
        if (credential.kind === 'anonymous')
            text = `unauthorised (${status}) by ${this.#registry}${where}: the registry requires credentials; ${what}`;
        else if (status === 403)
            text = `denied (403) by ${this.#registry}${where}: ${what} has no pull access`;
        else
            text = `unauthorised (${status}) by ${this.#registry}${where}: it rejected ${what}`;
        return new OciError(status === 403 ? 'denied' : 'unauthorized', url, text, status);
    }
    async #answer(challenge, scope, url) {
        const credential = await this.credential(url);
        if (challenge.scheme === 'basic') {
            if (credential.kind === 'basic') {
                const header = `Basic ${Buffer.from(`${credential.username}:${credential.password}`).toString('base64')}`;
                this.#context.secrets.add(header.slice(6));
                return header;
            }
            if (credential.kind === 'bearer')
                return `Bearer ${credential.token}`;
            if (credential.kind === 'anonymous')
                throw await this.rejected(url, 401, ' (Basic auth)');
            throw new OciError('unauthorized', url, `unauthorised (401) by ${this.#registry}: it asks for Basic auth, which ${describeCredential(credential)} cannot answer`, 401);
        }
        if (challenge.scheme !== 'bearer') {
            throw new OciError('unauthorized', url, `unauthorised: ${this.#registry} asks for unsupported auth scheme ${(0,display_text/* quote */.h)(challenge.scheme)}`, 401);
        }
        if (credential.kind === 'bearer')
            return `Bearer ${credential.token}`;
        const token = await this.#fetchToken(challenge, scope, credential, url);
        return token;
    }
    /**
     * What may be sent to a token realm. Explicit credentials are bound to the registry host
     * they were given for: a realm on another host (which the registry, and so a pull request
     * naming that registry, chooses) gets them only when it has an entry of its own, or is
     * Docker Hub's own token service. Docker config and GITHUB_TOKEN are the user's own
     * mapping of hosts and are sent as docker does.
     */
    #realmCredential(credential, realmHost) {
        if (!isExplicitCredential(credential) || sameService(this.#registry, realmHost))
            return credential;
        const own = explicitCredentialFor(realmHost, this.#context.credentials);
        if (own && this.#context.credentials.hostCredentials) {
            registerSecrets(own, this.#context.secrets);
            return own;
        }
        return { kind: 'anonymous', source: `the token realm ${realmHost} is not ${this.#registry}; explicit credentials are not sent there without an entry of its own` };
    }
    async #fetchToken(challenge, scope, credential, url) {
        const realm = challenge.params.realm;
        if (!realm)
            throw new OciError('unauthorized', url, `unauthorised: the Bearer challenge of ${this.#registry} names no realm`, 401);
        let realmUrl;
        try {
            realmUrl = new URL(realm);
        }
        catch {
            throw new OciError('unauthorized', url, `unauthorised: the token realm ${JSON.stringify(realm)} of ${this.#registry} is not a URL`, 401);
        }
        if (realmUrl.protocol !== 'https:' && realmUrl.protocol !== 'http:') {
            throw new OciError('unauthorized', url, `unauthorised: the token realm of ${this.#registry} is not http(s)`, 401);
        }
        const service = challenge.params.service;
        credential = this.#realmCredential(credential, realmUrl.host);
        const { secrets, timeoutMs, userAgent, signal } = this.#context;
        const headers = { 'User-Agent': userAgent, Accept: 'application/json' };
        let method = 'GET';
        let body;
        if (credential.kind === 'identity') {
            method = 'POST';
            const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: credential.refreshToken, client_id: 'timoni-fleet', scope });
            if (service)
                form.set('service', service);
            body = form.toString();
            headers['Content-Type'] = 'application/x-www-form-urlencoded';
        }
        else {
            if (service)
                realmUrl.searchParams.set('service', service);
            realmUrl.searchParams.set('scope', scope);
            if (credential.kind === 'basic') {
                const basic = Buffer.from(`${credential.username}:${credential.password}`).toString('base64');
                secrets.add(basic);
                headers.Authorization = `Basic ${basic}`;
                if (credential.username !== '')
                    realmUrl.searchParams.set('account', credential.username);
            }
        }
        const where = `${realmUrl.origin}${realmUrl.pathname}`;
        const response = await withRetry(async () => {
            const res = await send(realmUrl, { method, headers, body, timeoutMs, signal });
            const status = res.statusCode ?? 0;
            if (status === 401 || status === 403) {
                await drain(res);
                throw await this.rejected(url, status, ` (token endpoint ${where})`);
            }
            if (isRetryableStatus(status)) {
                await drain(res);
                throw new TransientError(`token endpoint ${where} answered ${status}`, status, retry_parseRetryAfter(res.headers['retry-after']));
            }
            if (status < 200 || status >= 300) {
                await drain(res);
                throw new OciError('unauthorized', url, `token endpoint ${where} of ${this.#registry} answered ${status}`, status);
            }
            return readBody(res, TOKEN_LIMIT);
        }, this.#context.retry, ({ error, attempts }) => new OciError('network', url, `token endpoint ${where} of ${this.#registry} failed after ${attempts} attempts: ${error.message}`, error instanceof TransientError ? error.status : undefined));
        let parsed;
        try {
            parsed = JSON.parse(response.toString('utf8'));
        }
        catch {
            throw new OciError('unauthorized', url, `token endpoint ${where} of ${this.#registry} answered with something that is not JSON`);
        }
        const token = typeof parsed.token === 'string' && parsed.token !== '' ? parsed.token : parsed.access_token;
        if (typeof token !== 'string' || token === '')
            throw new OciError('unauthorized', url, `token endpoint ${where} of ${this.#registry} returned no token`);
        secrets.add(token);
        const lifetime = typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 60;
        const header = `Bearer ${token}`;
        this.#tokens.set(scope, { header, expiresAt: Date.now() + Math.max(1, lifetime - 10) * 1000 });
        return header;
    }
}
const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
/** The host name of `host[:port]` (IPv6 in brackets kept whole). */
function hostName(host) {
    const lower = host.toLowerCase();
    if (lower.startsWith('['))
        return lower.slice(0, lower.indexOf(']') + 1);
    return lower.replace(/:\d+$/, '');
}
/**
 * True when a token realm belongs to the registry itself: the same host name (a token
 * service on another port of the same host is the registry's own), or Docker Hub's.
 */
function sameService(registry, realmHost) {
    const registryHost = hostName(registry);
    const realm = hostName(realmHost);
    if (registryHost === realm)
        return true;
    return DOCKER_HUB.has(registryHost) && realm === 'auth.docker.io';
}
const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;
function parseChallenges(header) {
    const challenges = [];
    let i = 0;
    const skip = (chars) => {
        while (i < header.length && chars.test(header[i] ?? ''))
            i += 1;
    };
    const token = () => {
        TOKEN.lastIndex = i;
        const match = TOKEN.exec(header);
        if (!match)
            return undefined;
        i = TOKEN.lastIndex;
        return match[0];
    };
    let current;
    while (i < header.length) {
        skip(/[\s,]/);
        if (i >= header.length)
            break;
        const word = token();
        if (word === undefined) {
            // an unexpected character: skip the rest of this element rather than give up
            while (i < header.length && header[i] !== ',')
                i += 1;
            continue;
        }
        skip(/[ \t]/);
        if (header[i] === '=' && current) {
            i += 1;
            skip(/[ \t]/);
            let value;
            if (header[i] === '"') {
                i += 1;
                value = '';
                while (i < header.length && header[i] !== '"') {
                    if (header[i] === '\\' && i + 1 < header.length)
                        i += 1;
                    value += header[i];
                    i += 1;
                }
                i += 1;
            }
            else {
                // lenient: an unquoted value runs to the next comma or space
                const start = i;
                while (i < header.length && !/[\s,]/.test(header[i] ?? ''))
                    i += 1;
                value = header.slice(start, i);
            }
            current.params[word.toLowerCase()] = value;
            continue;
        }
        if (header[i] === '=' && !current) {
            // token68 or a parameter before any scheme: malformed, skip to the next comma
            while (i < header.length && header[i] !== ',')
                i += 1;
            continue;
        }
        current = { scheme: word.toLowerCase(), params: {} };
        challenges.push(current);
    }
    return challenges;
}
/** The challenge to answer: Bearer when offered, else Basic, else the first. */
function preferredChallenge(challenges) {
    return challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'basic') ?? challenges[0];
}

;// CONCATENATED MODULE: ./src/module/oci/cache.ts
// Remembers pulled modules for a run, so that a module used by several clusters and
// instances is pulled once: an in-process map shares one pull between every caller of the
// same reference (concurrent callers wait for the same promise), and a folder keyed by
// manifest digest keeps extracted modules (`<dir>/sha256/<hex>/`, with `<hex>.json`
// holding its version and annotations), across runs: by default the one module cache
// folder of src/private-cache-dir.ts, so that no run leaves a folder of its own behind.
// Folders are filled under a temporary name and renamed into place, so a folder that
// exists is complete; temporary folders that a killed process left are removed after an
// hour. Failures are not remembered: the next caller tries again.




const cache_TEMPORARY_PREFIX = '.tmp-';
const cache_STALE_TEMPORARY_MS = 60 * 60 * 1000;
/** Removes what a killed process left while filling the cache (older than an hour). */
async function removeStaleTemporaries(root) {
    const names = await (0,promises_namespaceObject.readdir)(root).catch(() => []);
    const now = Date.now();
    await Promise.all(names
        .filter((name) => name.startsWith(cache_TEMPORARY_PREFIX))
        .map(async (name) => {
        const path = (0,external_node_path_namespaceObject.join)(root, name);
        const info = await (0,promises_namespaceObject.stat)(path).catch(() => undefined);
        if (info && now - info.mtimeMs > cache_STALE_TEMPORARY_MS)
            await (0,promises_namespaceObject.rm)(path, { recursive: true, force: true });
    }));
}
class ModuleCache {
    #dir;
    #root;
    #byReference = new Map();
    #byDigest = new Map();
    /** `dir`: where extracted modules are kept; default the module cache folder (src/private-cache-dir.ts). */
    constructor(options = {}) {
        this.#dir = options.dir ?? defaultCacheDir('modules');
    }
    /** The cache folder, created (private) and checked on first use. */
    root() {
        this.#root ??= (async () => {
            const dir = preparePrivateCacheDir(this.#dir, 'module cache folder');
            await (0,promises_namespaceObject.mkdir)((0,external_node_path_namespaceObject.join)(dir, 'sha256'), { recursive: true, mode: 0o700 });
            await removeStaleTemporaries(dir);
            return dir;
        })();
        return this.#root;
    }
    /** One pull per reference key for the life of this cache; concurrent callers share it. */
    shared(key, produce) {
        return this.#once(this.#byReference, key, produce);
    }
    /** The module already extracted for `digest`, in this process or in the folder. */
    async lookup(digest) {
        const inProcess = this.#byDigest.get(digest);
        if (inProcess)
            return inProcess;
        const found = await this.#onDisk(digest);
        if (found && !this.#byDigest.has(digest))
            this.#byDigest.set(digest, Promise.resolve(found));
        return found;
    }
    async #onDisk(digest) {
        const { dir, meta } = await this.#paths(digest);
        try {
            if (!(await (0,promises_namespaceObject.stat)(dir)).isDirectory())
                return undefined;
            const parsed = JSON.parse(await (0,promises_namespaceObject.readFile)(meta, 'utf8'));
            return parsed.digest === digest ? { ...parsed, dir } : undefined;
        }
        catch {
            return undefined;
        }
    }
    /**
     * The folder for `meta.digest`: found in the cache, or filled by `fill` (given an empty
     * temporary folder) and moved into place. Concurrent calls for one digest share one fill.
     */
    store(meta, fill) {
        return this.#once(this.#byDigest, meta.digest, async () => {
            const existing = await this.#onDisk(meta.digest);
            if (existing)
                return existing;
            const root = await this.root();
            const paths = await this.#paths(meta.digest);
            const temporary = (0,external_node_path_namespaceObject.join)(root, `${cache_TEMPORARY_PREFIX}${(0,external_node_crypto_.randomBytes)(6).toString('hex')}`);
            await (0,promises_namespaceObject.mkdir)(temporary);
            try {
                await fill(temporary);
                const metaTemporary = `${temporary}.json`;
                await (0,promises_namespaceObject.writeFile)(metaTemporary, JSON.stringify(meta));
                await (0,promises_namespaceObject.rename)(metaTemporary, paths.meta);
                try {
                    await (0,promises_namespaceObject.rename)(temporary, paths.dir);
                }
                catch (error) {
                    // Another process finished the same digest first: theirs is as good as ours.
                    if (!(await (0,promises_namespaceObject.stat)(paths.dir).then((s) => s.isDirectory(), () => false)))
                        throw error;
                }
                return { ...meta, dir: paths.dir };
            }
            finally {
                await (0,promises_namespaceObject.rm)(temporary, { recursive: true, force: true });
            }
        });
    }
    async #paths(digest) {
        const hex = digest.replace(/^sha256:/, '');
        if (!/^[a-f0-9]{64}$/.test(hex))
            throw new Error(`not a sha256 digest: ${digest}`);
        const base = (0,external_node_path_namespaceObject.join)(await this.root(), 'sha256', hex);
        return { dir: base, meta: `${base}.json` };
    }
    #once(map, key, produce) {
        const existing = map.get(key);
        if (existing)
            return existing;
        const started = produce();
        map.set(key, started);
        started.catch(() => {
            if (map.get(key) === started)
                map.delete(key);
        });
        return started;
    }
}

;// CONCATENATED MODULE: ./src/module/oci/manifest.ts
// Fetches and reads manifests: OCI and Docker image manifests, and indexes (OCI index,
// Docker manifest list) resolved to the manifest for the wanted platform (linux/amd64 by
// default) or to their only manifest. The digest of a manifest is the sha256 of its
// bytes as fetched; a manifest fetched by digest must hash to that digest. The media types
// and annotations of Timoni's artifacts are named here too.



// Media types and annotations of OCI artifacts, Docker manifests and Timoni modules
// (api/v1alpha1/artifact.go in Timoni).
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
const MANIFEST_TYPES = [OCI_MANIFEST, DOCKER_MANIFEST];
const INDEX_TYPES = [OCI_INDEX, DOCKER_MANIFEST_LIST];
/** The Accept header of manifest requests: every manifest and index type we can read. */
const MANIFEST_ACCEPT = [OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_MANIFEST_LIST].join(', ');
const TIMONI_CONFIG = 'application/vnd.timoni.config.v1+json';
const TIMONI_CONTENT = 'application/vnd.timoni.content.v1.tar+gzip';
const CONTENT_TYPE_ANNOTATION = 'sh.timoni.content.type';
const CONTENT_TYPE_MODULE = 'module';
const CONTENT_TYPE_VENDOR = 'module/vendor';
const VERSION_ANNOTATION = 'org.opencontainers.image.version';
/** Held the version in modules pushed by Timoni v0.13 and older. */
const REVISION_ANNOTATION = 'org.opencontainers.image.revision';
const USER_AGENT = 'timoni-fleet/v1';
const defaultPlatform = { os: 'linux', architecture: 'amd64' };
const MAX_MANIFEST_SIZE = 4 * 1024 * 1024;
const manifest_DIGEST = /^sha256:[a-f0-9]{64}$/;
function sha256Digest(bytes) {
    return `sha256:${(0,external_node_crypto_.createHash)('sha256').update(bytes).digest('hex')}`;
}
function bad(url, what, reason) {
    return new OciError('media-type', url, `${what} is not a valid manifest: ${reason}`);
}
function manifest_isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function manifest_stringMap(value) {
    if (!manifest_isRecord(value))
        return {};
    return Object.fromEntries(Object.entries(value).filter((entry) => typeof entry[1] === 'string'));
}
function parseDescriptor(value, url, what) {
    if (!manifest_isRecord(value))
        throw bad(url, what, 'a descriptor is not an object');
    const { mediaType, digest, size } = value;
    if (typeof mediaType !== 'string')
        throw bad(url, what, 'a descriptor has no mediaType');
    if (typeof digest !== 'string' || !manifest_DIGEST.test(digest))
        throw bad(url, what, `descriptor digest ${JSON.stringify(digest)} is not sha256:<64 hex>`);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
        throw bad(url, what, `descriptor ${digest} has no valid size`);
    const descriptor = { mediaType, digest, size, annotations: manifest_stringMap(value.annotations) };
    if (manifest_isRecord(value.platform)) {
        const { os, architecture, variant } = value.platform;
        descriptor.platform = {
            ...(typeof os === 'string' ? { os } : {}),
            ...(typeof architecture === 'string' ? { architecture } : {}),
            ...(typeof variant === 'string' ? { variant } : {}),
        };
    }
    return descriptor;
}
function parseJson(bytes, url, what) {
    let parsed;
    try {
        parsed = JSON.parse(bytes.toString('utf8'));
    }
    catch {
        throw bad(url, what, 'it is not JSON');
    }
    if (!manifest_isRecord(parsed))
        throw bad(url, what, 'it is not a JSON object');
    return parsed;
}
/** The media type a manifest declares, else the one the registry sent as Content-Type. */
function declaredType(json, contentType) {
    if (typeof json.mediaType === 'string' && json.mediaType !== '')
        return json.mediaType;
    if (Array.isArray(json.manifests))
        return INDEX_TYPES.includes(contentType) ? contentType : INDEX_TYPES[0];
    return contentType.split(';')[0]?.trim() ?? '';
}
function parseImageManifest(manifest, url, what) {
    const json = parseJson(manifest.bytes, url, what);
    if (json.schemaVersion !== 2)
        throw bad(url, what, `schemaVersion is ${JSON.stringify(json.schemaVersion)}, not 2`);
    if (!MANIFEST_TYPES.includes(manifest.mediaType)) {
        throw new OciError('media-type', url, `${what} has media type '${manifest.mediaType}', not an OCI or Docker image manifest`);
    }
    if (!Array.isArray(json.layers))
        throw bad(url, what, 'it has no layers');
    return {
        mediaType: manifest.mediaType,
        config: parseDescriptor(json.config, url, what),
        layers: json.layers.map((layer) => parseDescriptor(layer, url, what)),
        annotations: manifest_stringMap(json.annotations),
    };
}
/** The manifest of an index to pull: the wanted platform, else the only entry. */
function selectFromIndex(manifest, platform, url, what) {
    const json = parseJson(manifest.bytes, url, what);
    if (!Array.isArray(json.manifests))
        throw bad(url, what, 'the index has no manifests');
    const entries = json.manifests.map((entry) => parseDescriptor(entry, url, what)).filter((d) => MANIFEST_TYPES.includes(d.mediaType));
    const match = entries.find((d) => d.platform?.os === platform.os && d.platform?.architecture === platform.architecture);
    if (match)
        return match;
    if (entries.length === 1 && entries[0])
        return entries[0];
    const platforms = entries.map((d) => `${d.platform?.os ?? '?'}/${d.platform?.architecture ?? '?'}`).join(', ');
    throw new OciError('not-found', url, `${what} is an index of ${entries.length} image manifests (${platforms || 'none'}), none for ${platform.os}/${platform.architecture}`);
}
/** GETs a manifest by tag or digest; verifies the bytes against the digest when there is one. */
async function fetchManifest(client, identifier, what) {
    return client.get(`manifests/${identifier}`, what, MANIFEST_ACCEPT, async (res) => {
        let bytes;
        try {
            bytes = await readBody(res, MAX_MANIFEST_SIZE);
        }
        catch (error) {
            if (error instanceof BodyTooLargeError)
                throw new OciError('too-large', client.url, `${what} is larger than ${MAX_MANIFEST_SIZE} bytes`);
            throw error;
        }
        const digest = sha256Digest(bytes);
        if (manifest_DIGEST.test(identifier) && digest !== identifier) {
            throw new OciError('digest-mismatch', client.url, `${what}: the registry sent a manifest whose sha256 is ${digest}, not the requested ${identifier}`);
        }
        const json = parseJson(bytes, client.url, what);
        const contentType = String(res.headers['content-type'] ?? '');
        return { digest, mediaType: declaredType(json, contentType), bytes };
    });
}
/** Fetches the manifest `identifier` names, through an index when it is one. */
async function resolveManifest(client, identifier, platform) {
    const what = `manifest ${identifier}`;
    const top = await fetchManifest(client, identifier, what);
    if (!INDEX_TYPES.includes(top.mediaType)) {
        return { digest: top.digest, manifestDigest: top.digest, manifest: parseImageManifest(top, client.url, what) };
    }
    const chosen = selectFromIndex(top, platform, client.url, what);
    const childWhat = `manifest ${chosen.digest} (from the index ${identifier})`;
    const child = await fetchManifest(client, chosen.digest, childWhat);
    if (child.bytes.length !== chosen.size) {
        throw new OciError('digest-mismatch', client.url, `${childWhat} is ${child.bytes.length} bytes, the index says ${chosen.size}`);
    }
    return { digest: top.digest, manifestDigest: child.digest, manifest: parseImageManifest({ ...child, mediaType: child.mediaType || chosen.mediaType }, client.url, childWhat) };
}

;// CONCATENATED MODULE: ./src/module/oci/registry-client.ts



const MAX_REDIRECTS = 5;
/** `{"errors":[{"code":"MANIFEST_UNKNOWN","message":"..."}]}` -> `MANIFEST_UNKNOWN: ...`. */
function registryErrorText(body) {
    try {
        const parsed = JSON.parse(body.toString('utf8'));
        const first = parsed.errors?.[0];
        if (first && typeof first.code === 'string') {
            return typeof first.message === 'string' && first.message !== '' ? `${first.code}: ${first.message}` : first.code;
        }
    }
    catch {
        // not the distribution error format
    }
    return '';
}
class RegistryClient {
    #ref;
    #auth;
    #context;
    #url;
    /** `url` is the module URL that errors name. */
    constructor(ref, auth, context, url) {
        this.#ref = ref;
        this.#auth = auth;
        this.#context = context;
        this.#url = url;
    }
    get url() {
        return this.#url;
    }
    #scope() {
        return `repository:${this.#ref.repository}:pull`;
    }
    /**
     * GETs `/v2/<repo>/<path>` and hands a 2xx response to `consume`; `what` names the
     * object in messages ("manifest 1.0.0", "blob sha256:..."). `consume` may throw
     * NetworkError or TransientError to have the whole exchange retried.
     */
    async get(path, what, accept, consume) {
        const target = new URL(`${this.#ref.scheme}://${this.#ref.apiHost}/v2/${this.#ref.repository}/${path}`);
        const where = `${target.origin}${target.pathname}`;
        try {
            return await withRetry(() => this.#attempt(target, what, accept, consume), this.#context.retry, ({ error, attempts, elapsedMs }) => {
                const last = error instanceof TransientError && error.status !== undefined ? `last status ${error.status}` : `last error ${error.code ?? ''}: ${error.message}`;
                return new OciError(error instanceof TransientError && error.status !== undefined ? 'registry' : 'network', this.#url, `fetching ${what} from ${where} failed after ${attempts} attempt${attempts === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s; ${last}`, error instanceof TransientError ? error.status : undefined);
            });
        }
        catch (error) {
            if (error instanceof OciError)
                throw new OciError(error.code, error.url, this.#context.secrets.redact(error.message.slice(error.url.length + 2)), error.status);
            throw error;
        }
    }
    async #attempt(target, what, accept, consume) {
        const { timeoutMs, totalMs, userAgent, signal } = this.#context;
        const scope = this.#scope();
        const baseHeaders = { 'User-Agent': userAgent };
        if (accept)
            baseHeaders.Accept = accept;
        let authorization = await this.#auth.current(scope, this.#url);
        let answered = false;
        for (;;) {
            const headers = authorization ? { ...baseHeaders, Authorization: authorization } : baseHeaders;
            let res = await send(target, { headers, timeoutMs, totalMs, signal });
            if (res.statusCode === 401) {
                const challenge = res.headers['www-authenticate'];
                await drain(res);
                if (answered)
                    throw await this.#auth.rejected(this.#url, 401);
                authorization = await this.#auth.challenged(challenge, scope, this.#url);
                answered = true;
                continue;
            }
            let location = target;
            for (let hops = 0; isRedirect(res.statusCode) && res.headers.location; hops += 1) {
                if (hops >= MAX_REDIRECTS) {
                    await drain(res);
                    throw new OciError('registry', this.#url, `fetching ${what}: more than ${MAX_REDIRECTS} redirects`);
                }
                location = new URL(res.headers.location, location);
                await drain(res);
                if (location.protocol !== 'https:' && location.protocol !== 'http:')
                    throw new OciError('registry', this.#url, `fetching ${what}: redirect to a non-HTTP URL`);
                // Storage behind a redirect gets no Authorization header: the registry's token is not
                // for it, and a presigned URL carries its own authorisation.
                res = await send(location, { headers: baseHeaders, timeoutMs, totalMs, signal });
            }
            return this.#handle(res, location, what, consume);
        }
    }
    async #handle(res, location, what, consume) {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300)
            return consume(res);
        const body = await drain(res);
        const detail = registryErrorText(body);
        const suffix = detail ? ` (${status} ${detail})` : ` (${status})`;
        if (isRetryableStatus(status)) {
            throw new TransientError(`${what}${suffix}`, status, retry_parseRetryAfter(res.headers['retry-after']));
        }
        if (status === 404)
            throw new OciError('not-found', this.#url, `${what} not found in ${this.#ref.registry}/${this.#ref.repository}${suffix}`, 404);
        if (status === 401 || status === 403)
            throw await this.#auth.rejected(this.#url, status, location.host === this.#ref.apiHost ? '' : ` (at ${location.host})`);
        throw new OciError('registry', this.#url, `fetching ${what} from ${location.origin}${location.pathname} failed${suffix}`, status);
    }
}
function isRedirect(status) {
    return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

;// CONCATENATED MODULE: ./src/module/tar/reader.ts
// Reads the entries of an uncompressed tar archive held in memory: POSIX ustar headers
// (with the 155-byte name prefix), PAX extended headers (`path`, `linkpath`, `size`) and
// GNU long names (`L`/`K`), which is what Go's archive/tar writes for Timoni modules.
// It only parses; what is safe to extract is decided by extract.ts.
class TarFormatError extends Error {
    constructor(message) {
        super(message);
        this.name = 'TarFormatError';
    }
}
const BLOCK = 512;
function isZeroBlock(block) {
    for (const byte of block)
        if (byte !== 0)
            return false;
    return true;
}
function readString(block, offset, length) {
    const field = block.subarray(offset, offset + length);
    const end = field.indexOf(0);
    return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}
/** Octal numeric field, or GNU base-256 when the top bit of the first byte is set. */
function readNumber(block, offset, length, field) {
    const bytes = block.subarray(offset, offset + length);
    const first = bytes[0] ?? 0;
    if (first & 0x80) {
        if (first & 0x40)
            throw new TarFormatError(`negative base-256 ${field} in tar header`);
        let value = first & 0x3f;
        for (const byte of bytes.subarray(1)) {
            value = value * 256 + byte;
            if (!Number.isSafeInteger(value))
                throw new TarFormatError(`${field} in tar header is too large`);
        }
        return value;
    }
    const text = bytes.toString('latin1').replace(/\0.*$/s, '').trim();
    if (text === '')
        return 0;
    if (!/^[0-7]+$/.test(text))
        throw new TarFormatError(`invalid octal ${field} ${JSON.stringify(text)} in tar header`);
    return parseInt(text, 8);
}
function verifyChecksum(block) {
    const stored = readNumber(block, 148, 8, 'checksum');
    let unsigned = 0;
    let signed = 0;
    for (let i = 0; i < BLOCK; i += 1) {
        const byte = i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
        unsigned += byte;
        signed += byte > 127 ? byte - 256 : byte;
    }
    if (stored !== unsigned && stored !== signed)
        throw new TarFormatError('tar header checksum mismatch (not a tar archive, or corrupted)');
}
/** Parses PAX records: `<length> <key>=<value>\n`, the length counting the whole record. */
function parsePaxRecords(data) {
    const records = new Map();
    let offset = 0;
    while (offset < data.length) {
        const space = data.indexOf(0x20, offset);
        if (space === -1)
            throw new TarFormatError('malformed PAX record: no length');
        const lengthText = data.subarray(offset, space).toString('latin1');
        if (!/^[0-9]+$/.test(lengthText))
            throw new TarFormatError('malformed PAX record length');
        const length = parseInt(lengthText, 10);
        const end = offset + length;
        if (length <= space - offset + 1 || end > data.length || data[end - 1] !== 0x0a) {
            throw new TarFormatError('malformed PAX record');
        }
        const record = data.subarray(space + 1, end - 1).toString('utf8');
        const equals = record.indexOf('=');
        if (equals <= 0)
            throw new TarFormatError('malformed PAX record: no key');
        records.set(record.slice(0, equals), record.slice(equals + 1));
        offset = end;
    }
    return records;
}
function entryType(flag) {
    switch (flag) {
        case '0':
        case '\0':
        case '7':
            return 'file';
        case '5':
            return 'directory';
        case '2':
            return 'symlink';
        case '1':
            return 'hardlink';
        case '3':
        case '4':
            return 'device';
        case '6':
            return 'fifo';
        default:
            return 'other';
    }
}
/**
 * The type flag, name and declared size of the header block at `offset`, or undefined at
 * the end-of-archive zero block; for checking limits while an archive is still inflating.
 */
function peekHeader(archive, offset) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.length < BLOCK || isZeroBlock(header))
        return undefined;
    verifyChecksum(header);
    return { typeFlag: String.fromCharCode(header[156] ?? 0), name: readString(header, 0, 100), size: readNumber(header, 124, 12, 'size') };
}
const defaultReadLimits = { maxEntrySize: Number.MAX_SAFE_INTEGER, maxHeaderSize: 1024 * 1024 };
/**
 * Yields the entries of `archive` in order. Metadata entries (PAX `x`/`g`, GNU `L`/`K`)
 * are applied to the next entry and not yielded. Ends at two zero blocks, or at the end
 * of the buffer on a block boundary; a truncated entry is an error.
 */
function* readTar(archive, limits = {}) {
    const { maxEntrySize, maxHeaderSize } = { ...defaultReadLimits, ...limits };
    let offset = 0;
    let pending = {};
    while (offset + BLOCK <= archive.length) {
        const header = archive.subarray(offset, offset + BLOCK);
        if (isZeroBlock(header))
            return;
        verifyChecksum(header);
        const typeFlag = String.fromCharCode(header[156] ?? 0);
        const magic = header.subarray(257, 263).toString('latin1');
        let name = readString(header, 0, 100);
        if (magic === 'ustar\0') {
            const prefix = readString(header, 345, 155);
            if (prefix !== '')
                name = `${prefix}/${name}`;
        }
        let size = readNumber(header, 124, 12, 'size');
        const isMeta = typeFlag === 'x' || typeFlag === 'g' || typeFlag === 'L' || typeFlag === 'K';
        if (!isMeta && pending.size !== undefined)
            size = pending.size;
        if (isMeta && size > maxHeaderSize)
            throw new TarFormatError(`tar ${typeFlag} header of ${size} bytes exceeds ${maxHeaderSize}`);
        if (!isMeta && size > maxEntrySize) {
            throw new TarFormatError(`tar entry ${JSON.stringify(pending.path ?? name)} is ${size} bytes, more than the limit of ${maxEntrySize}`);
        }
        const dataStart = offset + BLOCK;
        const type = entryType(typeFlag);
        // Only files (and metadata) carry content; a size on other types is skipped as ustar says.
        const carriesData = isMeta || type === 'file' || type === 'other';
        const dataLength = carriesData ? size : 0;
        if (dataStart + dataLength > archive.length)
            throw new TarFormatError(`tar archive is truncated in entry ${JSON.stringify(name)}`);
        const data = archive.subarray(dataStart, dataStart + dataLength);
        offset = dataStart + Math.ceil(dataLength / BLOCK) * BLOCK;
        if (typeFlag === 'x') {
            const records = parsePaxRecords(data);
            const path = records.get('path');
            const linkpath = records.get('linkpath');
            const paxSize = records.get('size');
            if (path !== undefined)
                pending.path = path;
            if (linkpath !== undefined)
                pending.linkpath = linkpath;
            if (paxSize !== undefined) {
                if (!/^[0-9]+$/.test(paxSize))
                    throw new TarFormatError('malformed PAX size');
                pending.size = Number(paxSize);
            }
            continue;
        }
        if (typeFlag === 'g') {
            parsePaxRecords(data); // validated; global defaults are not applied (as Go's reader)
            continue;
        }
        if (typeFlag === 'L' || typeFlag === 'K') {
            const value = data.toString('utf8').replace(/\0+$/, '');
            if (typeFlag === 'L')
                pending.path = value;
            else
                pending.linkpath = value;
            continue;
        }
        const entry = {
            name: pending.path ?? name,
            type,
            typeFlag,
            mode: readNumber(header, 100, 8, 'mode'),
            size: carriesData ? size : 0,
            linkName: pending.linkpath ?? readString(header, 157, 100),
            data,
        };
        pending = {};
        yield entry;
    }
    if (offset !== archive.length)
        throw new TarFormatError('tar archive is truncated (partial header block)');
    if (Object.keys(pending).length > 0)
        throw new TarFormatError('tar archive ends after an extended header');
}

;// CONCATENATED MODULE: ./src/module/tar/extract.ts
// Extracts a gzip-compressed tar archive (a Timoni content layer) into a folder, within
// limits: only regular files and directories are written; absolute paths, `..`, links,
// devices and FIFOs are refused, as are archives whose files exceed the per-file or total
// size, or that hold too many entries. Limits are checked against the declared sizes
// before anything is written, and the gzip stream is never inflated past what the
// limits allow.




const defaultExtractLimits = {
    maxTotalSize: 100 * 1024 * 1024,
    maxFileSize: 100 * 1024 * 1024,
    maxEntries: 20_000,
};
class UnsafeArchiveError extends Error {
    constructor(message) {
        super(message);
        this.name = 'UnsafeArchiveError';
    }
}
/**
 * Inflates `gz` without producing more than the limits allow (headers and padding
 * included). While it inflates, it reads the tar headers that have arrived, so that an
 * archive declaring a file over the limits is refused before the rest is inflated.
 */
function gunzipWithin(gz, limits) {
    // Each entry costs at most three header blocks (PAX, GNU name, ustar) plus a padding block.
    const maxOutputLength = limits.maxTotalSize + (limits.maxEntries * 4 + 2) * 512;
    return new Promise((resolve, reject) => {
        const gunzip = (0,external_node_zlib_namespaceObject.createGunzip)();
        const chunks = [];
        let length = 0;
        let header = Buffer.alloc(0); // a header block still arriving
        let skip = 0; // bytes of entry data still to pass over
        let total = 0;
        let scanning = true;
        let failed = false;
        const fail = (error) => {
            if (failed)
                return;
            failed = true;
            gunzip.destroy();
            reject(error);
        };
        const check = (block) => {
            const peeked = peekHeader(block, 0);
            if (!peeked) {
                scanning = false;
                return;
            }
            const isFile = peeked.typeFlag === '0' || peeked.typeFlag === '\0' || peeked.typeFlag === '7';
            if (isFile && peeked.size > limits.maxFileSize) {
                throw new UnsafeArchiveError(`tar entry ${JSON.stringify(peeked.name)} is ${peeked.size} bytes, more than the limit of ${limits.maxFileSize}`);
            }
            if (isFile)
                total += peeked.size;
            if (total > limits.maxTotalSize) {
                throw new UnsafeArchiveError(`archive files add up to more than the limit of ${limits.maxTotalSize} bytes (at ${JSON.stringify(peeked.name)})`);
            }
            skip = Math.ceil(peeked.size / 512) * 512;
        };
        gunzip.on('data', (chunk) => {
            if (failed)
                return;
            length += chunk.length;
            if (length > maxOutputLength) {
                fail(new UnsafeArchiveError(`archive inflates to more than ${maxOutputLength} bytes (limit ${limits.maxTotalSize} bytes of files)`));
                return;
            }
            chunks.push(chunk);
            let position = 0;
            try {
                while (scanning && position < chunk.length) {
                    if (skip > 0) {
                        const passed = Math.min(skip, chunk.length - position);
                        skip -= passed;
                        position += passed;
                        continue;
                    }
                    const taken = Math.min(512 - header.length, chunk.length - position);
                    header = Buffer.concat([header, chunk.subarray(position, position + taken)]);
                    position += taken;
                    if (header.length === 512) {
                        const block = header;
                        header = Buffer.alloc(0);
                        check(block);
                    }
                }
            }
            catch (error) {
                // A malformed header is left for the full reader to report with its context.
                if (error instanceof UnsafeArchiveError)
                    fail(error);
                else
                    scanning = false;
            }
        });
        gunzip.on('error', (error) => fail(new TarFormatError(`not a valid gzip stream: ${error.message}`)));
        gunzip.on('end', () => {
            if (!failed)
                resolve(Buffer.concat(chunks, length));
        });
        gunzip.end(gz);
    });
}
/**
 * `./a//b/` becomes `a/b`; the archive root (`.` or `./`) becomes the empty string.
 */
function safeEntryPath(name) {
    if (name.includes('\0'))
        return { ok: false, reason: 'contains a NUL byte' };
    if (name.includes('\\'))
        return { ok: false, reason: 'contains a backslash' };
    if (name.startsWith('/'))
        return { ok: false, reason: 'is an absolute path' };
    if (/^[A-Za-z]:/.test(name))
        return { ok: false, reason: 'starts with a drive letter' };
    const segments = [];
    for (const segment of name.split('/')) {
        if (segment === '' || segment === '.')
            continue;
        if (segment === '..')
            return { ok: false, reason: 'contains a ".." segment' };
        segments.push(segment);
    }
    return { ok: true, path: segments.join('/') };
}
function checkEntry(entry) {
    const safe = safeEntryPath(entry.name);
    if (!safe.ok)
        throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} ${safe.reason}`);
    if (entry.type === 'symlink' || entry.type === 'hardlink') {
        throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} is a ${entry.type} (to ${JSON.stringify(entry.linkName)}); links are not allowed`);
    }
    if (entry.type === 'device' || entry.type === 'fifo') {
        throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} is a ${entry.type}; only files and directories are allowed`);
    }
    if (entry.type === 'other') {
        throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} has unsupported tar type ${JSON.stringify(entry.typeFlag)}`);
    }
    return safe.path;
}
/** Reads and validates every entry first, so that a refused archive writes nothing. */
function planExtraction(tar, limits = defaultExtractLimits) {
    const plan = [];
    let total = 0;
    for (const entry of readTar(tar, { maxEntrySize: limits.maxFileSize })) {
        if (plan.length >= limits.maxEntries)
            throw new UnsafeArchiveError(`archive holds more than ${limits.maxEntries} entries`);
        const path = checkEntry(entry);
        if (entry.type === 'file') {
            if (path === '')
                throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} is a file at the archive root`);
            total += entry.size;
            if (total > limits.maxTotalSize) {
                throw new UnsafeArchiveError(`archive files add up to more than the limit of ${limits.maxTotalSize} bytes (at ${JSON.stringify(entry.name)})`);
            }
        }
        plan.push({ path, entry });
    }
    return plan;
}
async function isDirectory(path) {
    try {
        return (await (0,promises_namespaceObject.stat)(path)).isDirectory();
    }
    catch {
        return false;
    }
}
async function writeEntry(dir, path, entry, result) {
    const target = (0,external_node_path_namespaceObject.join)(dir, ...path.split('/'));
    if (entry.type === 'directory') {
        await (0,promises_namespaceObject.mkdir)(target, { recursive: true, mode: (entry.mode & 0o777) | 0o700 });
        result.directories += 1;
        return;
    }
    const parent = path.includes('/') ? (0,external_node_path_namespaceObject.join)(dir, ...path.split('/').slice(0, -1)) : dir;
    await (0,promises_namespaceObject.mkdir)(parent, { recursive: true });
    if (await isDirectory(target))
        throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    await (0,promises_namespaceObject.writeFile)(target, entry.data, { mode: (entry.mode & 0o777) | 0o600 });
    result.files += 1;
    result.bytes += entry.size;
}
/**
 * Extracts the tar (already inflated) into `dir`, which must be a folder only this call
 * writes to. Later entries overwrite earlier files of the same path (layer overlay).
 */
async function extractTar(tar, dir, limits = defaultExtractLimits) {
    const plan = planExtraction(tar, limits);
    const result = { files: 0, directories: 0, bytes: 0 };
    await (0,promises_namespaceObject.mkdir)(dir, { recursive: true });
    for (const { path, entry } of plan) {
        if (path === '')
            continue;
        try {
            await writeEntry(dir, path, entry, result);
        }
        catch (error) {
            const code = error.code;
            // A path used as a file by one entry and as a folder by another (or by an earlier layer).
            if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
                throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.name)} clashes with an earlier file or directory of the same path`);
            }
            throw error;
        }
    }
    return result;
}
/** Inflates and extracts a `.tar.gz` held in memory into `dir`. */
async function extractTarGz(gz, dir, limits = {}) {
    const effective = { ...defaultExtractLimits, ...limits };
    return extractTar(await gunzipWithin(gz, effective), dir, effective);
}

;// CONCATENATED MODULE: ./src/module/oci/pull.ts
// Pulls a Timoni module from an OCI registry, as Timoni's PullModule does
// (internal/oci/pull_module.go): resolve the reference (`url:version`, or `url@digest`
// when the version is `latest` and a digest is pinned), fetch the manifest, take its
// digest from the bytes fetched, check Timoni's config media type, download every
// content layer (verified against its digest) and extract them into one folder, the
// vendor layer first. A pinned digest must match the upstream digest, on every use.












/** Content layers in extraction order: `module/vendor` first, then the rest as listed. */
function contentLayers(layers) {
    const content = layers.filter((layer) => layer.mediaType === TIMONI_CONTENT);
    const vendor = content.filter((layer) => layer.annotations[CONTENT_TYPE_ANNOTATION] === CONTENT_TYPE_VENDOR);
    return [...vendor, ...content.filter((layer) => !vendor.includes(layer))];
}
// Downloads a blob (a module layer) into memory: the declared size is checked against a
// limit before the download, the bytes are hashed as they arrive, and the result must
// match the descriptor's size and sha256 digest exactly.
async function downloadBlob(client, descriptor, maxSize) {
    const what = `blob ${descriptor.digest}`;
    if (descriptor.size > maxSize) {
        throw new OciError('too-large', client.url, `${what} is ${descriptor.size} bytes, more than the limit of ${maxSize}`);
    }
    return client.get(`blobs/${descriptor.digest}`, what, undefined, async (res) => {
        const hash = (0,external_node_crypto_.createHash)('sha256');
        let bytes;
        try {
            // One byte more than declared is enough to tell that the blob is not the one described.
            bytes = await readBody(res, descriptor.size + 1, (chunk) => hash.update(chunk));
        }
        catch (error) {
            if (error instanceof BodyTooLargeError) {
                throw new OciError('digest-mismatch', client.url, `${what} is larger than the ${descriptor.size} bytes its descriptor says`);
            }
            throw error;
        }
        if (bytes.length < descriptor.size) {
            // A body shorter than declared with a clean end: the transfer was cut; try again.
            throw new NetworkError('ESHORTBODY', `${what}: got ${bytes.length} of ${descriptor.size} bytes`);
        }
        const digest = `sha256:${hash.digest('hex')}`;
        if (digest !== descriptor.digest) {
            throw new OciError('digest-mismatch', client.url, `${what} failed verification: its content hashes to ${digest}`);
        }
        return bytes;
    });
}
/** A client for one run: it keeps registry sessions (tokens) and the module cache. */
class ModuleClient {
    cache;
    #options;
    #secrets;
    #context;
    #limits;
    #sessions = new Map();
    constructor(options = {}) {
        this.#options = options;
        this.cache = options.cache ?? new ModuleCache(options.cacheDir !== undefined ? { dir: options.cacheDir } : {});
        this.#secrets = new SecretRegistry(options.secrets);
        if (options.credentials)
            this.#secrets.add(options.credentials);
        for (const credential of Object.values(options.hostCredentials ?? {}))
            this.#secrets.add(credential);
        this.#context = {
            retry: { ...defaultRetryPolicy, ...options.retry },
            timeoutMs: options.timeoutMs ?? 30_000,
            ...(options.totalMs !== undefined ? { totalMs: options.totalMs } : {}),
            userAgent: options.userAgent ?? USER_AGENT,
            secrets: this.#secrets,
            signal: options.signal,
        };
        this.#limits = { ...defaultExtractLimits, maxLayerSize: 100 * 1024 * 1024, ...options.limits };
    }
    /** Pulls `url` at `version` (a tag, or `latest`), checking `digest` when given. */
    async pull(url, version = 'latest', digest) {
        const ref = reference_moduleReference(url, version, digest, { insecure: this.#options.insecure });
        const key = referenceUrl(ref);
        const module = await this.cache.shared(key, () => this.#fetch(ref, key));
        if (digest && module.digest !== digest) {
            // Timoni's words (cmd/timoni/bundle_apply.go).
            throw new OciError('digest-mismatch', key, `the upstream digest ${module.digest} of version ${version} doesn't match the specified digest ${digest}`);
        }
        return {
            url,
            repository: repositoryUrl(ref),
            version: module.version,
            digest: module.digest,
            manifestDigest: module.manifestDigest,
            reference: `${repositoryUrl(ref)}@${module.digest}`,
            annotations: module.annotations,
            dir: module.dir,
        };
    }
    #session(ref) {
        const key = `${ref.scheme}://${ref.apiHost}`;
        let session = this.#sessions.get(key);
        if (!session) {
            session = new RegistryAuth(ref.registry, { ...this.#context, credentials: this.#options });
            this.#sessions.set(key, session);
        }
        return session;
    }
    async #fetch(ref, url) {
        if (ref.digest) {
            const cached = await this.cache.lookup(ref.digest);
            if (cached)
                return cached;
        }
        const client = new RegistryClient(ref, this.#session(ref), this.#context, url);
        const resolved = await resolveManifest(client, manifestIdentifier(ref), this.#options.platform ?? defaultPlatform);
        const { manifest } = resolved;
        if (manifest.config.mediaType !== TIMONI_CONFIG) {
            throw new OciError('media-type', url, `unsupported artifact type '${manifest.config.mediaType}', must be '${TIMONI_CONFIG}'`);
        }
        const layers = contentLayers(manifest.layers);
        if (layers.length === 0)
            throw new OciError('media-type', url, `no layer found in artifact with media type '${TIMONI_CONTENT}'`);
        const annotations = manifest.annotations;
        const version = annotations[VERSION_ANNOTATION] ?? annotations[REVISION_ANNOTATION] ?? '';
        const meta = { digest: resolved.digest, manifestDigest: resolved.manifestDigest, version, annotations };
        return this.cache.store(meta, async (dir) => {
            for (const layer of layers) {
                const blob = await downloadBlob(client, layer, this.#limits.maxLayerSize);
                try {
                    await extractTarGz(blob, dir, this.#limits);
                }
                catch (error) {
                    if (error instanceof UnsafeArchiveError || error instanceof TarFormatError) {
                        const kind = layer.annotations[CONTENT_TYPE_ANNOTATION];
                        throw new OciError('archive', url, `extracting layer ${layer.digest}${kind ? ` (${kind})` : ''} failed: ${error.message}`);
                    }
                    throw error;
                }
            }
        });
    }
}
/**
 * Pulls one module. Pass the same `client` (or `cache`) for every use in a run so that a
 * module is pulled once; without one, this call makes its own client.
 */
function pullModule(url, version, digest, options = {}) {
    return (options.client ?? new ModuleClient(options)).pull(url, version, digest);
}

;// CONCATENATED MODULE: ./src/module/oci/index.ts
// The OCI registry client's public face: pull a Timoni module by URL, version and digest.
//
//   const client = new ModuleClient({ cacheDir, credentials, secrets: core.setSecret });
//   const module = await client.pull('oci://ghcr.io/org/modules/app', '1.2.3', digest);
//   // module.dir (read-only, shared), module.digest, module.version, module.repository
//
// One client per run: every pull of the same reference (or digest) shares one download.
// Failures are OciError, whose `code` tells the case and whose message names the module URL.





;// CONCATENATED MODULE: ./src/module/source.ts
// Where a module comes from, read into memory once per run: `oci://` modules are pulled
// (the OCI client caches by digest), `file://` modules are read from disk. Every cluster and
// instance that uses the same module, version and digest shares one ModuleSource; only the
// values change between builds.





const DEVEL_VERSION = '0.0.0-devel';
const LOCAL_DIGEST = 'unknown';
// Reads a module folder into memory for the CUE engine: every file under it except
// version-control folders, text as strings and the rest as bytes (CUE may embed them).
const SKIPPED_FOLDERS = new Set(['.git', '.hg', '.svn', 'node_modules']);
/** A module is source code; anything larger is most likely a mistake. */
const MODULE_FILE_LIMIT_BYTES = 32 * 1024 * 1024;
class ModuleFilesError extends Error {
}
function isText(data) {
    return !data.subarray(0, 8000).includes(0);
}
/**
 * Every file of the module folder (what CUE may load or `@embed`), each checked to resolve,
 * after symlinks, inside the boundary (by default the module folder itself).
 */
function readModuleFiles(root, boundary = new FileBoundary([root])) {
    const files = {};
    let total = 0;
    try {
        walkInside(root, boundary, (path, real) => {
            total += (0,external_node_fs_.statSync)(real).size;
            if (total > MODULE_FILE_LIMIT_BYTES) {
                throw new ModuleFilesError(`module at ${root} holds more than ${MODULE_FILE_LIMIT_BYTES / 1024 / 1024} MiB of files`);
            }
            const data = (0,external_node_fs_.readFileSync)(real);
            const key = (0,external_node_path_namespaceObject.relative)(root, path).split('\\').join('/');
            files[key] = isText(data) ? data.toString('utf8') : new Uint8Array(data);
        }, (name) => SKIPPED_FOLDERS.has(name));
    }
    catch (error) {
        if (error instanceof ModuleFilesError)
            throw error;
        throw new ModuleFilesError(`module at ${root}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return files;
}
/** The module name declared in cue.mod/module.cue (`module: "example.com/app"`). */
function moduleNameOf(engine, files) {
    const text = files['cue.mod/module.cue'];
    if (typeof text !== 'string')
        return undefined;
    const value = engine.compile(text, { filename: 'cue.mod/module.cue' });
    const name = value.lookup('module');
    try {
        return name.exists() && name.kind() === 'string' ? name.toJSON() : undefined;
    }
    finally {
        name.free();
        value.free();
    }
}
// `file://` modules: a folder on disk, relative URLs resolved against the working
// directory (the bundle layer has already made them relative to the declaring file).
// Like Timoni, the folder must hold cue.mod/module.cue, timoni.cue and values.cue; the
// version is 0.0.0-devel and the digest is unknown.
const LOCAL_PREFIX = 'file://';
const REQUIRED_FILES = ['cue.mod/module.cue', 'timoni.cue', 'values.cue'];
class LocalModuleError extends Error {
    constructor(url, reason) {
        super(`module ${url}: ${reason}`);
        this.name = 'LocalModuleError';
    }
}
/**
 * Reads a local module. Its folder must resolve inside the boundary (by default the working
 * directory): a bundle may not point `file://` at `/etc` or `../../..`.
 */
function loadLocalModule(url, cwd, engine, boundary = new FileBoundary([cwd])) {
    const path = url.slice(LOCAL_PREFIX.length);
    const root = (0,external_node_path_namespaceObject.isAbsolute)(path) ? path : (0,external_node_path_namespaceObject.resolve)(cwd, path);
    if (!(0,external_node_fs_.existsSync)(root))
        throw new LocalModuleError(url, `no module folder at ${root}`);
    const realRoot = (0,external_node_fs_.realpathSync)(root);
    if (!boundary.contains(realRoot)) {
        const where = realRoot === (0,external_node_path_namespaceObject.resolve)(root) ? root : `${root} (which points to ${realRoot})`;
        throw new LocalModuleError(url, `the module folder ${where} is outside ${boundary.describe()}; local modules must live inside it`);
    }
    if (!(0,external_node_fs_.statSync)(root).isDirectory())
        throw new LocalModuleError(url, `no module folder at ${root}`);
    for (const required of REQUIRED_FILES) {
        if (!(0,external_node_fs_.existsSync)((0,external_node_path_namespaceObject.join)(root, required)))
            throw new LocalModuleError(url, `required file not found: ${(0,external_node_path_namespaceObject.join)(root, required)}`);
    }
    let files;
    try {
        files = readModuleFiles(root, boundary);
    }
    catch (error) {
        throw new LocalModuleError(url, error instanceof Error ? error.message.replace(`module at ${root}: `, '') : String(error));
    }
    const name = moduleNameOf(engine, files);
    if (!name)
        throw new LocalModuleError(url, `cue.mod/module.cue in ${root} declares no module name`);
    return { url, version: DEVEL_VERSION, digest: LOCAL_DIGEST, name, files, root, localPath: (0,external_node_path_namespaceObject.relative)(cwd, root).split('\\').join('/') || '.' };
}
class ModuleResolver {
    engine;
    cwd;
    boundary;
    #sources = new Map();
    #client;
    constructor(engine, cwd, clientOptions = {}, 
    /** Where local (`file://`) modules may live; by default the working directory. */
    boundary = new FileBoundary([cwd])) {
        this.engine = engine;
        this.cwd = cwd;
        this.boundary = boundary;
        this.#client = new ModuleClient(clientOptions);
    }
    resolve(request) {
        const key = `${request.url}\n${request.version}\n${request.digest ?? ''}`;
        let source = this.#sources.get(key);
        if (!source) {
            source = this.#load(request);
            this.#sources.set(key, source);
            source.catch(() => this.#sources.delete(key));
        }
        return source;
    }
    async #load(request) {
        if (request.url.startsWith(LOCAL_PREFIX))
            return loadLocalModule(request.url, this.cwd, this.engine, this.boundary);
        const pulled = await this.#client.pull(request.url, request.version, request.digest);
        const files = readModuleFiles(pulled.dir);
        const name = moduleNameOf(this.engine, files) ?? '';
        return {
            url: request.url,
            version: pulled.version || request.version,
            digest: pulled.digest,
            name,
            files,
            root: pulled.dir,
            repository: pulled.repository,
            annotations: { ...pulled.annotations },
        };
    }
}

;// CONCATENATED MODULE: ./src/cli/fleet-state-text.ts
// `timoni-fleet status -o text`: the state of every cluster x instance as a table in
// kubectl's style (columns padded with spaces, upper-case headings), one row per instance,
// and a line counting the states.

/** `sha256:0123456789ab`: the algorithm and the first 12 hex digits; other forms as they are. */
function shortDigest(digest) {
    const match = /^([a-z0-9]+):([0-9a-f]{12})[0-9a-f]*$/.exec(digest);
    return match ? `${match[1]}:${match[2]}` : digest;
}
/** `2/3`, or `-` when nothing is stored. */
function readinessText(row) {
    return row.readiness ? `${row.readiness.ready}/${row.readiness.total}` : '-';
}
const HEADINGS = ['CLUSTER', 'GROUP', 'INSTANCE', 'NAMESPACE', 'STATE', 'MODULE', 'DIGEST', 'LAST APPLIED', 'READY', 'REASON'];
function cells(row) {
    const module = row.module ?? row.desired;
    return [
        row.cluster,
        row.group,
        row.instance || '-',
        row.namespace || '-',
        row.state,
        module?.version || '-',
        module?.digest ? shortDigest(module.digest) : '-',
        row.lastApplied ?? '-',
        readinessText(row),
        // One line per row: a reason never breaks the table.
        row.reason.replace(/\s*\n\s*/g, ' ') || '-',
    ];
}
/** The table; the last column (the reason) is not padded. */
function fleetStateTable(state) {
    const rows = [HEADINGS, ...state.instances.map(cells)];
    const widths = HEADINGS.map((_, column) => Math.max(...rows.map((r) => (r[column] ?? '').length)));
    return rows.map((r) => r.map((cell, column) => (column === r.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('   ').trimEnd()).join('\n') + '\n';
}
/** `2 deployed, 1 stale, 1 not installed, 0 failed, 1 unknown`. */
function stateCounts(state) {
    return INSTANCE_STATES.map((name) => `${state.counts[name]} ${name}`).join(', ');
}

// EXTERNAL MODULE: ./src/cli/io.ts
var cli_io = __nccwpck_require__(1604);
;// CONCATENATED MODULE: ./src/cli/options.ts
// The flags of each command, named as `timoni bundle` names them, and what they read: the
// bundle, runtime and module files every command starts from (bundle flags), the
// kubeconfig, and for the commands that reach clusters (diff, apply, status, delete) the
// fleet run they describe.












// ---- Flags
const bundleFlags = [
    { name: 'file', short: 'f', kind: 'list', description: 'Bundle file (.cue, .json, .yaml); repeat or separate with commas' },
    { name: 'runtime', short: 'r', kind: 'list', description: 'Runtime file; may be one of the bundle files' },
    { name: 'runtime-group', kind: 'string', default: '*', description: 'Only the clusters of this group' },
    { name: 'runtime-cluster', kind: 'string', default: '*', description: 'Only the cluster of this name' },
    { name: 'runtime-from-env', kind: 'boolean', description: 'Give environment variables to @timoni(runtime:...) attributes (never CI job credentials)' },
    { name: 'runtime-env', kind: 'list', description: 'Give only these environment variables to runtime attributes; repeat or separate with commas' },
    { name: 'allow-path', kind: 'list', description: 'Another folder that bundle, runtime and module files may come from (default: the current directory and the folders of the -f/-r files)' },
    { name: 'workdir', kind: 'string', default: '', description: 'CUE module root for imports in bundle files (default: current directory)' },
    { name: 'kubeconfig', kind: 'string', default: '', description: 'Path to the kubeconfig file' },
    { name: 'kube-context', kind: 'string', default: '', description: 'Kube context of the default cluster (runtime without clusters)' },
    { name: 'output', short: 'o', kind: 'string', default: 'text', choices: ['text', 'json'], description: 'Output format' },
    { name: 'cue-memory-limit', kind: 'string', default: '2048', description: "Ceiling on the CUE engine's memory in MiB (64-4096)" },
];
const identityRecordFlag = { name: 'cluster-identity-record', kind: 'string', default: DEFAULT_IDENTITY_RECORD, description: "The identity record's ConfigMap name in kube-system" };
/** vet and build reach a cluster only to read the runtime's value queries, its identity checked first (query-access.ts). */
const queryIdentityFlags = () => nonRecordingIdentityFlags("the runtime's value queries are read from it");
const vetFlags = [...bundleFlags, { name: 'print-value', kind: 'boolean', description: 'Print the computed bundle value of each cluster' }, ...queryIdentityFlags()];
const buildFlags = [
    ...bundleFlags.map((flag) => (flag.name === 'output' ? { ...flag, default: 'yaml', choices: ['yaml', 'json'] } : flag)),
    { name: 'creds', kind: 'string', default: '', description: 'Registry credentials: user:password, or a token' },
    { name: 'mask-secrets', kind: 'boolean', description: 'Print the values of Kubernetes Secrets as *** (as timoni build --mask-secrets)' },
    ...queryIdentityFlags(),
];
const fleetFlags = [
    ...bundleFlags,
    { name: 'wait', kind: 'boolean', default: 'true', description: 'Wait for applied objects to become ready (--wait=false to skip)' },
    { name: 'timeout', kind: 'string', default: '5m', description: "Time limit of each cluster's apply, all its instances' readiness waits together" },
    { name: 'prune', kind: 'boolean', default: 'true', description: 'Delete objects that the bundle no longer builds' },
    { name: 'prune-removed-instances', kind: 'boolean', default: 'true', description: "With --prune, delete the bundle's instances that it no longer lists (--prune-removed-instances=false keeps them)" },
    { name: 'force', kind: 'boolean', description: 'Recreate objects whose immutable fields change' },
    { name: 'overwrite-ownership', kind: 'boolean', description: 'Take over instances owned by another bundle' },
    { name: 'creds', kind: 'string', default: '', description: 'Registry credentials: user:password, or a token' },
    { name: 'concurrency', kind: 'string', default: '4', description: 'Clusters diffed at once' },
    { name: 'strategy', kind: 'string', default: 'sequential', choices: [...ROLLOUT_STRATEGIES], description: 'Rollout: sequential (one cluster after the other) or waves (the clusters of one group at once, group after group)' },
    { name: 'max-parallel', kind: 'string', default: '4', description: 'With --strategy waves: clusters of one wave applied at once' },
    { name: 'deadline', kind: 'string', default: '', description: 'Time limit of the whole run, e.g. 30m (none by default)' },
    { name: 'changes-file', kind: 'string', default: '', description: 'Also write the ChangeSet JSON (as -o json prints it) to this file' },
    { name: 'cluster-identity', kind: 'string', default: 'check', choices: [...IDENTITY_MODES], description: 'check: refuse a cluster recorded under another runtime name; record: also record each cluster on its first apply; off' },
    identityRecordFlag,
    { name: 'repin-cluster', kind: 'list', description: "Overwrite this runtime cluster's identity record on purpose (apply); repeat or separate with commas" },
];
/**
 * The flags beyond the bundle flags that each fleet command reads; `--help` lists only these.
 * apply applies one cluster at a time (or --max-parallel per wave): --concurrency, the
 * number of clusters diffed at once, is diff's.
 */
const commandFlags = {
    apply: fleetFlags.filter((flag) => !bundleFlags.includes(flag) && flag.name !== 'concurrency').map((flag) => flag.name),
    diff: ['prune', 'prune-removed-instances', 'force', 'overwrite-ownership', 'creds', 'concurrency', 'deadline', 'changes-file', 'cluster-identity', 'cluster-identity-record', 'repin-cluster'],
    status: ['deadline', 'cluster-identity', 'cluster-identity-record', 'repin-cluster'],
    delete: ['wait', 'timeout', 'deadline', 'cluster-identity', 'cluster-identity-record', 'repin-cluster'],
};
/**
 * The identity flags of the commands that never record (status and vet/build read, delete
 * removes): a record is written only by an apply, whose values are the cluster's (a delete
 * that recorded would pin a cluster at the moment its bundle leaves it, from a command that
 * builds nothing for it). `--repin-cluster` there takes the named runtime cluster as
 * re-pinned for this command only: a cluster whose record names another runtime cluster is
 * read, or deleted from, under the new name, and its record is left as it is.
 */
function nonRecordingIdentityFlags(what) {
    return [
        {
            name: 'cluster-identity',
            kind: 'string',
            default: 'check',
            choices: ['check', 'off'],
            description: `check: refuse a cluster recorded under another runtime name before ${what} (never writes the record: only apply records); off`,
        },
        identityRecordFlag,
        {
            name: 'repin-cluster',
            kind: 'list',
            description: 'Take this runtime cluster as re-pinned: a cluster recorded under another name is reached anyway, its record not rewritten (apply --repin-cluster does that); repeat or separate with commas',
        },
    ];
}
const readOrDeleteIdentityFlags = new Map(nonRecordingIdentityFlags('anything is read or deleted there').map((flag) => [flag.name, flag]));
/**
 * `status` without `-o` prints Timoni's `bundle status` lines; `-o text` the state of each
 * cluster x instance (deployed, stale, not installed, failed, unknown), `-o json` the same as JSON.
 */
const statusOutputFlag = {
    name: 'output',
    short: 'o',
    kind: 'string',
    default: '',
    choices: ['text', 'json'],
    description: "The state of each instance: text (a table) or json; without it, Timoni's bundle status lines",
};
/** delete's --wait and --timeout: they bound the wait for deleted objects to be gone, not an apply's readiness. */
const deleteFlags = new Map([
    ['wait', { name: 'wait', kind: 'boolean', default: 'true', description: "Wait for the deleted objects to be gone before removing each instance's record (--wait=false to skip)" }],
    ['timeout', { name: 'timeout', kind: 'string', default: '5m', description: "Time limit of each cluster's delete, all its instances' waits together" }],
]);
function fleetFlagsFor(command) {
    const own = commandFlags[command];
    const flags = fleetFlags
        .filter((flag) => bundleFlags.includes(flag) || own.includes(flag.name))
        .map((flag) => (command === 'status' || command === 'delete' ? (readOrDeleteIdentityFlags.get(flag.name) ?? flag) : flag))
        .map((flag) => (command === 'delete' ? (deleteFlags.get(flag.name) ?? flag) : flag));
    return command === 'status' ? flags.map((flag) => (flag.name === 'output' ? statusOutputFlag : flag)) : flags;
}
/** `--cue-memory-limit` in MiB, checked. */
function cueMemoryLimit(args) {
    const text = args.strings.get('cue-memory-limit') ?? '2048';
    const value = Number(text);
    if (!Number.isInteger(value) || value < 64 || value > 4096)
        throw new UsageError(`--cue-memory-limit must be a whole number of MiB from 64 to 4096, not "${text}"`);
    return value;
}
/** The root of the git work tree holding `cwd` (a bundle may use modules anywhere in its repository), else `cwd`. */
function repositoryRoot(cwd) {
    for (let dir = (0,external_node_path_namespaceObject.resolve)(cwd);; dir = (0,external_node_path_namespaceObject.dirname)(dir)) {
        if ((0,external_node_fs_.existsSync)((0,external_node_path_namespaceObject.join)(dir, '.git')))
            return dir;
        if ((0,external_node_path_namespaceObject.dirname)(dir) === dir)
            return (0,external_node_path_namespaceObject.resolve)(cwd);
    }
}
function readBundleInputs(engine, args, cwd, env) {
    const files = args.lists.get('file') ?? [];
    if (files.length === 0)
        throw new UsageError('no bundle given: pass one or more files with -f');
    const workdir = (0,external_node_path_namespaceObject.resolve)(cwd, args.strings.get('workdir') || '.');
    const named = [...files, ...(args.lists.get('runtime') ?? [])].map((file) => (0,external_node_path_namespaceObject.dirname)((0,external_node_path_namespaceObject.resolve)(cwd, file)));
    const boundary = new FileBoundary([repositoryRoot(cwd), workdir, ...named, ...(args.lists.get('allow-path') ?? []).map((path) => (0,external_node_path_namespaceObject.resolve)(cwd, path))]);
    const moduleFiles = readCueModuleFiles(workdir, boundary);
    const bundleFiles = readSourceFiles(files, cwd, boundary);
    const runtimeFiles = readSourceFiles(args.lists.get('runtime') ?? [], cwd, boundary);
    let allowed;
    try {
        allowed = parseVariableNames((args.lists.get('runtime-env') ?? []).join(','), '--runtime-env');
    }
    catch (error) {
        throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const runtime = loadRuntime(engine, runtimeFiles, moduleFiles, args.strings.get('kube-context') ?? '');
    return {
        bundleFiles,
        runtime,
        moduleFiles,
        selector: { cluster: args.strings.get('runtime-cluster'), group: args.strings.get('runtime-group') },
        environment: runtimeEnvironment(env, { all: args.booleans.get('runtime-from-env') ?? false, allowed }),
        boundary,
        output: (args.strings.get('output') ?? 'text'),
    };
}
// ---- Kubeconfig and fleet run
/** The kubeconfig files: --kubeconfig, else the KUBECONFIG list, else ~/.kube/config. */
function kubeconfigPaths(args, io) {
    const given = args.strings.get('kubeconfig');
    return given ? [(0,external_node_path_namespaceObject.resolve)(io.cwd, given)] : (io.env.KUBECONFIG ?? (0,external_node_path_namespaceObject.join)((0,external_node_os_namespaceObject.homedir)(), '.kube', 'config')).split(':').filter(Boolean);
}
function kubeconfigTexts(args, io) {
    return kubeconfigPaths(args, io).map((path) => {
        try {
            return { text: (0,external_node_fs_.readFileSync)(path, 'utf8'), path };
        }
        catch {
            throw new UsageError(`cannot read kubeconfig ${path}`);
        }
    });
}
/**
 * The environment offered to runtime attributes, checked, as the action does, against every
 * secret of the run once the kubeconfig is loaded (its text and credentials, the registry
 * credentials): a variable whose value holds one, or a URL with a password, is withheld under
 * --runtime-from-env (the log names it, never its value) and refused when --runtime-env
 * lists it (../bundle/runtime-environment.ts).
 */
function environmentWithoutSecrets(args, env, secrets, log) {
    const withheld = [];
    const environment = runtimeEnvironment(env, {
        all: args.booleans.get('runtime-from-env') ?? false,
        allowed: parseVariableNames((args.lists.get('runtime-env') ?? []).join(','), '--runtime-env'),
        secretIn: (value) => secrets.secretIn(value),
        onWithheld: (name, why) => withheld.push(`${name} (${why})`),
    });
    if (withheld.length > 0) {
        log.line(`--runtime-from-env: withheld ${withheld.join(', ')}: a value that holds a secret of the run or a URL with a password is never given to runtime attributes`);
    }
    return environment;
}
function fleetRunFromArgs(engine, args, io, log) {
    const inputs = readBundleInputs(engine, args, io.cwd, io.env);
    const secrets = new SecretRegistry();
    const timeoutText = args.strings.get('timeout') ?? '5m';
    const timeoutMs = parseDuration(timeoutText);
    if (timeoutMs === undefined)
        throw new UsageError(`--timeout must be a duration such as 5m or 90s, not "${timeoutText}"`);
    const concurrency = Number(args.strings.get('concurrency') ?? '4');
    if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new UsageError('--concurrency must be a whole number, 1 or more');
    const maxParallelText = args.strings.get('max-parallel') ?? '4';
    const maxParallel = Number(maxParallelText);
    if (!Number.isInteger(maxParallel) || maxParallel < 1)
        throw new UsageError(`--max-parallel must be a whole number of clusters, 1 or more, not "${maxParallelText}"`);
    const creds = args.strings.get('creds');
    const deadlineText = args.strings.get('deadline') ?? '';
    const deadlineMs = deadlineText === '' ? undefined : parseDuration(deadlineText);
    if (deadlineMs === undefined && deadlineText !== '')
        throw new UsageError(`--deadline must be a duration such as 30m or 90s, not "${deadlineText}"`);
    const signal = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
    const kubeconfig = loadKubeconfig(kubeconfigTexts(args, io), secrets);
    const environment = environmentWithoutSecrets(args, io.env, secrets, log);
    return {
        engine,
        evaluation: { bundleFiles: inputs.bundleFiles, moduleFiles: inputs.moduleFiles, runtime: inputs.runtime, ...(environment ? { environment } : {}) },
        selector: inputs.selector,
        kubeconfig,
        secrets,
        resolver: new ModuleResolver(engine, io.cwd, { ...(creds ? { credentials: creds } : {}), secrets: (value) => secrets.register(value), ...(signal ? { signal } : {}) }, inputs.boundary),
        options: {
            ...defaultFleetOptions,
            wait: args.booleans.get('wait') ?? true,
            timeoutMs,
            prune: args.booleans.get('prune') ?? true,
            pruneRemovedInstances: args.booleans.get('prune-removed-instances') ?? true,
            force: args.booleans.get('force') ?? false,
            overwriteOwnership: args.booleans.get('overwrite-ownership') ?? false,
            concurrency,
            // --strategy is checked against its choices when the arguments are parsed.
            strategy: (args.strings.get('strategy') ?? 'sequential'),
            maxParallel,
            // --cluster-identity is checked against its choices when the arguments are parsed.
            identity: { mode: (args.strings.get('cluster-identity') ?? 'check'), recordName: args.strings.get('cluster-identity-record') || DEFAULT_IDENTITY_RECORD, repin: parseRepinList(args.lists.get('repin-cluster') ?? []) },
        },
        log,
        ...(deadlineMs !== undefined ? { deadlineAt: Date.now() + deadlineMs } : {}),
    };
}

;// CONCATENATED MODULE: ./src/cli/query-access.ts
// Runtime value queries for the commands that otherwise stay off clusters (vet, build): as
// Timoni's `bundle vet` and `bundle build --runtime-cluster X` do, they connect to each
// selected cluster through the kubeconfig (--kubeconfig, else KUBECONFIG, else
// ~/.kube/config) to read the objects the runtime's queries name. Nothing is opened when
// the runtime has no queries. Every value read from a Secret, and every credential of the
// kubeconfig, is registered so that the printed output can be redacted (every string of
// it, before it is printed, so that line folding cannot split a value).
//
// Before any query is read, each selected cluster's identity is checked as diff checks it
// (../kube/cluster-identity.ts, nothing written): a context that reaches a cluster recorded
// under another runtime name is refused, so that one cluster's Secrets and ConfigMaps never
// become another's values. `--cluster-identity off` skips it; `--repin-cluster` takes a
// renamed cluster as its new name without rewriting the record.







function openQueryAccess(inputs, args, io) {
    const secrets = new SecretRegistry();
    const sessions = new Map();
    const access = {
        secrets,
        registerSecretValues: (values) => {
            for (const value of values)
                secrets.register(value);
        },
        redact: (text) => secrets.redact(text),
        close: () => {
            for (const session of sessions.values())
                session.then((opened) => opened.kube.close()).catch(() => undefined);
        },
    };
    if (inputs.runtime.queries.length === 0)
        return access;
    const paths = kubeconfigPaths(args, io);
    if (!args.strings.get('kubeconfig') && !paths.some((path) => (0,external_node_fs_.existsSync)(path))) {
        throw new UsageError(`runtime "${inputs.runtime.name}" has value queries (${inputs.runtime.queries.map((q) => q.query).join(', ')}), which are read from the clusters: no kubeconfig found (${paths.join(', ')}); pass --kubeconfig or set KUBECONFIG`);
    }
    const kubeconfig = loadKubeconfig(kubeconfigTexts(args, io), secrets);
    const identity = {
        // --cluster-identity is checked against its choices (check, off) when the arguments are parsed.
        mode: (args.strings.get('cluster-identity') ?? 'check'),
        recordName: args.strings.get('cluster-identity-record') || DEFAULT_IDENTITY_RECORD,
        repin: parseRepinList(args.lists.get('repin-cluster') ?? []),
    };
    const connectChecked = async (cluster) => {
        const session = await openSession(kubeconfig, cluster, { secrets });
        try {
            const established = await establishIdentity(session.kube, { runtimeCluster: cluster.name, kubeContext: cluster.kubeContext }, { mode: identity.mode, recordName: identity.recordName, repin: repinsCluster(identity.repin, cluster.name), apply: false });
            if (established?.note)
                io.stderr(`${established.note}\n`);
            return session;
        }
        catch (error) {
            session.kube.close();
            throw error;
        }
    };
    const sessionFor = (cluster) => {
        let session = sessions.get(cluster.name);
        if (!session) {
            session = connectChecked(cluster);
            sessions.set(cluster.name, session);
        }
        return session;
    };
    access.connect = sessionFor;
    access.readObject = async (cluster, query) => (await sessionFor(cluster)).readObject(cluster, query);
    return access;
}
/**
 * The bundle evaluated for each selected cluster, its queries read through the kubeconfig
 * (the sessions closed once evaluated); the values read from Secrets registered with the
 * returned access, for `redact`.
 */
async function evaluateWithQueries(engine, inputs, args, io) {
    const access = openQueryAccess(inputs, args, io);
    let results;
    try {
        // Every selected cluster is checked, in runtime order, before the first query is read:
        // a refused cluster fails the command with its own message (both runtime names).
        if (access.connect)
            for (const cluster of selectClusters(inputs.runtime, inputs.selector))
                await access.connect(cluster);
        results = await evaluateForClusters(engine, { ...inputs, ...(access.readObject ? { readObject: access.readObject } : {}) });
    }
    finally {
        access.close();
    }
    for (const result of results)
        access.registerSecretValues(result.clusterSecretValues);
    return { results, access };
}
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A copy of a JSON value with `redact` applied to every string and key. */
function redactStrings(value, redact) {
    if (typeof value === 'string')
        return redact(value);
    if (Array.isArray(value))
        return value.map((item) => redactStrings(item, redact));
    if (isObject(value))
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactStrings(item, redact)]));
    return value;
}

;// CONCATENATED MODULE: ./src/cli/yaml-resolve.ts
// Which strings go-yaml v2 must quote because a YAML 1.1 reader would take them, unquoted,
// for something other than a string (go.yaml.in/yaml/v2 resolve.go `resolve` and
// encode.go `isBase60Float`): booleans (y, yes, on, off, n, no in three casings), null
// (~, null), .inf/.nan, integers in Go's syntax (0x, 0o, 0b, leading-0 octal, underscores
// ignored), decimal floats, timestamps (YYYY-M-D with an optional time, as Go's
// time.Parse reads the four layouts go-yaml tries) and base 60 numbers such as 12:30.
const keywords = new Set([
    'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
    'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
    '', '~', 'null', 'Null', 'NULL',
    '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
]);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const base60Float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
/** The digits of a Go integer literal (strconv.ParseUint base 0, no sign), as a BigInt; undefined when invalid. */
function goUnsigned(text) {
    let match = /^0[xX]([0-9a-fA-F]+)$/.exec(text);
    if (match && text.length >= 3)
        return BigInt(`0x${match[1]}`);
    match = /^0[bB]([01]+)$/.exec(text);
    if (match)
        return BigInt(`0b${match[1]}`);
    match = /^0[oO]([0-7]+)$/.exec(text);
    if (match)
        return BigInt(`0o${match[1]}`);
    match = /^0([0-7]*)$/.exec(text);
    if (match)
        return match[1] ? BigInt(`0o${match[1]}`) : 0n;
    if (/^[1-9][0-9]*$/.test(text))
        return BigInt(text);
    return undefined;
}
/** strconv.ParseInt(text, 0, 64) or strconv.ParseUint(text, 0, 64) succeeds. */
function isGoInteger(text) {
    const sign = text[0] === '+' || text[0] === '-' ? text[0] : '';
    const magnitude = goUnsigned(text.slice(sign.length));
    if (magnitude === undefined)
        return false;
    if (sign === '')
        return magnitude <= UINT64_MAX;
    const value = sign === '-' ? -magnitude : magnitude;
    return value >= INT64_MIN && value <= INT64_MAX;
}
/** strconv.ParseInt(digits, 2, 64) or ParseUint(digits, 2, 64) succeeds. */
function isGoBinary(digits) {
    const match = /^([+-]?)([01]+)$/.exec(digits);
    if (!match)
        return false;
    const magnitude = BigInt(`0b${match[2]}`);
    if (match[1] === '')
        return magnitude <= UINT64_MAX;
    const value = match[1] === '-' ? -magnitude : magnitude;
    return value >= INT64_MIN && value <= INT64_MAX;
}
function daysIn(month, year) {
    if (month === 2)
        return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
    return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
/**
 * Go's time.Parse with one of go-yaml's layouts: "2006-1-2T15:4:5.999999999Z07:00" (also
 * with a lower-case t), "2006-1-2 15:4:5.999999999" and "2006-1-2". Month, day, hour,
 * minute and second take one or two digits and are range-checked (the day against the
 * month); the fraction (after . or ,) is optional; the zone is Z or ±hh:mm (up to 24:60).
 */
function isTimestamp(text) {
    if (!/^[0-9]{4}-/.test(text))
        return false;
    const match = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(text);
    if (!match)
        return false;
    const [, year, month, day, separator, hour, minute, second, zone] = match;
    const m = Number(month);
    if (m < 1 || m > 12)
        return false;
    const d = Number(day);
    if (d < 1 || d > daysIn(m, Number(year)))
        return false;
    if (separator === undefined)
        return true;
    if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59)
        return false;
    // The space-separated layout has no zone; the T layouts require one.
    if (separator === ' ')
        return zone === undefined;
    if (zone === undefined)
        return false;
    if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60))
        return false;
    return true;
}
/** go-yaml's resolve(): does the plain scalar `text` read as anything but a string? */
function resolvesToOther(text) {
    if (keywords.has(text))
        return true;
    const first = text[0] ?? '';
    if (first === '.')
        return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) && Number.isFinite(Number(text));
    if (!/^[-+0-9]$/.test(first))
        return false;
    if (isTimestamp(text))
        return true;
    const plain = text.replaceAll('_', '');
    if (isGoInteger(plain))
        return true;
    if (yamlStyleFloat.test(plain) && Number.isFinite(Number(plain)))
        return true;
    if (plain.startsWith('0b'))
        return isGoBinary(plain.slice(2));
    if (plain.startsWith('-0b'))
        return isGoBinary(`-${plain.slice(3)}`);
    return false;
}
/** go-yaml's encoder quotes the string when it would not read back as the same string. */
function resolvesToNonString(text) {
    if (resolvesToOther(text))
        return true;
    return /^[-+0-9]/.test(text) && text.includes(':') && base60Float.test(text);
}

;// CONCATENATED MODULE: ./src/cli/timoni-yaml.ts
// Objects printed as YAML exactly as `timoni build` / `timoni bundle build` print them:
// sigs.k8s.io/yaml's Marshal, which writes the object as JSON, reads that JSON back with
// go-yaml v2 and emits it with go-yaml v2's emitter (a port of libyaml). What that means,
// read from go.yaml.in/yaml/v2 v2.4.4 (resolve.go, encode.go, emitterc.go, sorter.go):
//
// - strings that a YAML 1.1 reader would take for something else (yes, no, on, off, y,
//   n, ~, null, numbers with underscores, base 60 numbers such as 12:30, dates such as
//   2001-12-14) are double-quoted; strings with a line break are literal blocks (`|`),
//   unless they hold characters a block cannot (then double-quoted with escapes);
//   strings that cannot be plain (indicators, leading or trailing spaces) single-quoted;
// - plain and quoted scalars are folded at a space once the line passes 80 columns;
// - sequences inside a mapping are not indented (`key:\n- item`);
// - keys in "natural" order (digit runs compared as numbers, letters after other
//   characters); keys longer than 128 bytes or with line breaks become `? key\n: value`;
// - empty maps and lists as `{}` and `[]`; floats as Go's strconv 'g' (1e+21, 1e-06).
//
// Each string's analysis (its style, whether it may be plain or quoted) is computed once
// and remembered; only the folding depends on the column where the string starts.

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
/** A key longer than this (in UTF-8 bytes) is written as a complex key (`? key`). */
const SIMPLE_KEY_LIMIT = 128;
class TimoniYamlError extends Error {
    constructor(message) {
        super(message);
        this.name = 'TimoniYamlError';
    }
}
const isBreak = (c) => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isSpace = (c) => c === 0x20;
const isBlank = (c) => c === 0x20 || c === 0x09;
const isBlankOrEnd = (c) => c === undefined || c === 0 || isBlank(c) || isBreak(c);
/** libyaml's is_printable: what may appear unescaped (4-byte characters may not). */
function isPrintable(c) {
    return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}
function utf8Length(c) {
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}
/** Code points; a lone surrogate becomes U+FFFD, as Go's JSON encoder writes it. */
function codePoints(text) {
    const chars = [];
    for (const char of text) {
        const c = char.codePointAt(0);
        chars.push(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
    }
    return chars;
}
/** libyaml's yaml_emitter_analyze_scalar, plus the style go-yaml's encoder requests. */
function analyze(text) {
    const chars = codePoints(text);
    const byteLength = chars.reduce((sum, c) => sum + utf8Length(c), 0);
    const requested = text.includes('\n') ? 'literal' : resolvesToNonString(text) ? 'double' : 'plain';
    if (chars.length === 0) {
        return { chars, byteLength, multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false, requested };
    }
    let blockIndicators = false;
    let lineBreaks = false;
    let special = false;
    let leadingSpace = false;
    let leadingBreak = false;
    let trailingSpace = false;
    let trailingBreak = false;
    let breakSpace = false;
    let spaceBreak = false;
    let previousSpace = false;
    let previousBreak = false;
    let precededByWhitespace = true;
    if (/^(---|\.\.\.)/.test(text))
        blockIndicators = true;
    for (let i = 0; i < chars.length; i += 1) {
        const c = chars[i];
        const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]);
        if (i === 0) {
            if ('#,[]{}&*!|>\'"%@`'.includes(String.fromCodePoint(c)))
                blockIndicators = true;
            else if ((c === 0x3f || c === 0x3a || c === 0x2d) && followedByWhitespace)
                blockIndicators = true; // ? : -
        }
        else if (c === 0x3a && followedByWhitespace)
            blockIndicators = true;
        else if (c === 0x23 && precededByWhitespace)
            blockIndicators = true; // #
        if (!isPrintable(c))
            special = true;
        if (isSpace(c)) {
            if (i === 0)
                leadingSpace = true;
            if (i === chars.length - 1)
                trailingSpace = true;
            if (previousBreak)
                breakSpace = true;
            previousSpace = true;
            previousBreak = false;
        }
        else if (isBreak(c)) {
            lineBreaks = true;
            if (i === 0)
                leadingBreak = true;
            if (i === chars.length - 1)
                trailingBreak = true;
            if (previousSpace)
                spaceBreak = true;
            previousSpace = false;
            previousBreak = true;
        }
        else {
            previousSpace = false;
            previousBreak = false;
        }
        precededByWhitespace = isBlankOrEnd(c);
    }
    let blockPlainAllowed = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak);
    let singleQuotedAllowed = true;
    let blockAllowed = !trailingSpace;
    if (breakSpace) {
        blockPlainAllowed = false;
        singleQuotedAllowed = false;
    }
    if (spaceBreak || special) {
        blockPlainAllowed = false;
        singleQuotedAllowed = false;
        blockAllowed = false;
    }
    if (lineBreaks || blockIndicators)
        blockPlainAllowed = false;
    return { chars, byteLength, multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed, requested };
}
/**
 * What a string value becomes when go-yaml reads the JSON text that holds it: raw control
 * characters outside YAML's printable set stop the reader; a raw NEL (U+0085, which JSON
 * does not escape) is a line break inside a double-quoted scalar and folds into a space
 * (several into line feeds), with the spaces around it dropped.
 */
function throughJsonReader(text, isKey) {
    if (/[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/.test(text))
        throw new TimoniYamlError(`yaml: control characters are not allowed (in ${JSON.stringify(text)})`);
    if (!text.includes('\u0085'))
        return text;
    if (isKey)
        throw new TimoniYamlError(`yaml: a key with a NEL line break (U+0085) cannot be printed: ${JSON.stringify(text)}`);
    return text.replace(/ *\u0085(?: *\u0085)* */g, (run) => {
        const breaks = run.split('\u0085').length - 1;
        return breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
    });
}
/** Go's strconv.FormatFloat(f, 'g', -1, 64). */
function goFloat(value) {
    const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
    const negative = mantissa.startsWith('-');
    const digits = mantissa.replace('-', '').replace('.', '');
    const exponent = Number(exponentText);
    const sign = negative ? '-' : '';
    if (exponent < -4 || exponent >= 6) {
        const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
        const abs = Math.abs(exponent);
        return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
    }
    if (exponent < 0)
        return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}
/** A JSON number as go-yaml prints it after reading it back: whole numbers within 64 bits exactly, others as floats. */
function formatNumber(value) {
    if (!Number.isFinite(value))
        throw new TimoniYamlError(`yaml: ${value} is not a JSON number`);
    if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 64)
        return BigInt(value).toString();
    return goFloat(value);
}
const isLetter = (c) => /\p{L}/u.test(String.fromCodePoint(c));
const isDigit = (c) => /\p{Nd}/u.test(String.fromCodePoint(c));
/** go-yaml v2's keyList.Less for two string keys. */
function naturalLess(a, b) {
    const ar = codePoints(a);
    const br = codePoints(b);
    for (let i = 0; i < ar.length && i < br.length; i += 1) {
        const ac = ar[i];
        const bc = br[i];
        if (ac === bc)
            continue;
        const al = isLetter(ac);
        const bl = isLetter(bc);
        if (al && bl)
            return ac < bc;
        if (al || bl)
            return bl;
        let an = 0n;
        let bn = 0n;
        if (ac === 0x30 || bc === 0x30) {
            for (let j = i - 1; j >= 0 && isDigit(ar[j]); j -= 1) {
                if (ar[j] !== 0x30) {
                    an = 1n;
                    bn = 1n;
                    break;
                }
            }
        }
        let ai = i;
        for (; ai < ar.length && isDigit(ar[ai]); ai += 1)
            an = BigInt.asIntN(64, an * 10n + BigInt(ar[ai] - 0x30));
        let bi = i;
        for (; bi < br.length && isDigit(br[bi]); bi += 1)
            bn = BigInt.asIntN(64, bn * 10n + BigInt(br[bi] - 0x30));
        if (an !== bn)
            return an < bn;
        if (ai !== bi)
            return ai < bi;
        return ac < bc;
    }
    return ar.length < br.length;
}
function sortKeys(keys) {
    return [...keys].sort((a, b) => (naturalLess(a, b) ? -1 : naturalLess(b, a) ? 1 : 0));
}
function hex(value, width) {
    return value.toString(16).toUpperCase().padStart(width, '0');
}
const namedEscapes = new Map([
    [0x00, '0'], [0x07, 'a'], [0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0b, 'v'], [0x0c, 'f'], [0x0d, 'r'],
    [0x1b, 'e'], [0x22, '"'], [0x5c, '\\'], [0x85, 'N'], [0xa0, '_'], [0x2028, 'L'], [0x2029, 'P'],
]);
/** One go-yaml document: the emitter's column, indentation and whitespace state, as libyaml keeps it. */
class Emitter {
    analyses;
    out = '';
    column = 0;
    whitespace = true;
    indention = true;
    indent = -1;
    indents = [];
    constructor(analyses) {
        this.analyses = analyses;
    }
    document(value) {
        this.node(value, { root: true });
        this.writeIndent();
        return this.out;
    }
    analysis(text) {
        let found = this.analyses.get(text);
        if (!found) {
            found = analyze(text);
            this.analyses.set(text, found);
        }
        return found;
    }
    put(text) {
        this.out += text;
        this.column += text.length;
    }
    writeChar(c) {
        this.out += String.fromCodePoint(c);
        this.column += 1;
    }
    putBreak() {
        this.out += '\n';
        this.column = 0;
    }
    writeBreak(c) {
        if (c === 0x0a)
            this.putBreak();
        else {
            this.out += String.fromCodePoint(c);
            this.column = 0;
        }
    }
    writeIndent() {
        const indent = Math.max(this.indent, 0);
        if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace))
            this.putBreak();
        while (this.column < indent)
            this.put(' ');
        this.whitespace = true;
        this.indention = true;
    }
    writeIndicator(indicator, needWhitespace, isWhitespace, isIndention) {
        if (needWhitespace && !this.whitespace)
            this.put(' ');
        this.put(indicator);
        this.whitespace = isWhitespace;
        this.indention = this.indention && isIndention;
    }
    increaseIndent(flow, indentless) {
        this.indents.push(this.indent);
        if (this.indent < 0)
            this.indent = flow ? BEST_INDENT : 0;
        else if (!indentless)
            this.indent += BEST_INDENT;
    }
    popIndent() {
        this.indent = this.indents.pop() ?? -1;
    }
    node(value, context) {
        if (value === null || value === undefined)
            this.plainScalar('null', context);
        else if (typeof value === 'boolean')
            this.plainScalar(value ? 'true' : 'false', context);
        else if (typeof value === 'number')
            this.plainScalar(formatNumber(value), context);
        else if (typeof value === 'bigint')
            this.plainScalar(value.toString(), context);
        else if (typeof value === 'string')
            this.stringScalar(throughJsonReader(value, context.simpleKey === true), context);
        else if (Array.isArray(value))
            this.sequence(value, context);
        else if (typeof value === 'object')
            this.mapping(value, context);
        else
            throw new TimoniYamlError(`yaml: cannot print a value of type ${typeof value}`);
    }
    emptyCollection(open, close) {
        this.writeIndicator(open, true, true, false);
        this.writeIndicator(close, false, false, false);
    }
    sequence(items, context) {
        if (items.length === 0)
            return this.emptyCollection('[', ']');
        this.increaseIndent(false, context.mapping === true && !this.indention);
        for (const item of items) {
            this.writeIndent();
            this.writeIndicator('-', true, false, true);
            this.node(item, {});
        }
        this.popIndent();
    }
    mapping(object, _context) {
        const keys = sortKeys(Object.keys(object).filter((key) => object[key] !== undefined));
        if (keys.length === 0)
            return this.emptyCollection('{', '}');
        this.increaseIndent(false, false);
        for (const key of keys) {
            this.writeIndent();
            const analysis = this.analysis(throughJsonReader(key, true));
            if (!analysis.multiline && analysis.byteLength <= SIMPLE_KEY_LIMIT) {
                this.node(key, { mapping: true, simpleKey: true });
                this.writeIndicator(':', false, false, false);
            }
            else {
                this.writeIndicator('?', true, false, true);
                this.node(key, { mapping: true });
                this.writeIndent();
                this.writeIndicator(':', true, false, true);
            }
            this.node(object[key], { mapping: true });
        }
        this.popIndent();
    }
    /** Numbers, booleans and null: always plain. */
    plainScalar(text, context) {
        this.increaseIndent(true, false);
        this.writePlain(codePoints(text), !context.simpleKey);
        this.popIndent();
    }
    stringScalar(text, context) {
        const analysis = this.analysis(text);
        const simpleKey = context.simpleKey === true;
        let style = analysis.requested;
        if (simpleKey && analysis.multiline)
            style = 'double';
        if (style === 'plain' && (!analysis.blockPlainAllowed || (analysis.chars.length === 0 && simpleKey)))
            style = 'single';
        if (style === 'single' && !analysis.singleQuotedAllowed)
            style = 'double';
        if (style === 'literal' && (!analysis.blockAllowed || simpleKey))
            style = 'double';
        this.increaseIndent(true, false);
        const chars = analysis.chars;
        if (style === 'plain')
            this.writePlain(chars, !simpleKey);
        else if (style === 'single')
            this.writeSingleQuoted(chars, !simpleKey);
        else if (style === 'double')
            this.writeDoubleQuoted(chars, !simpleKey);
        else
            this.writeLiteral(chars);
        this.popIndent();
    }
    writePlain(chars, allowBreaks) {
        if (!this.whitespace)
            this.put(' ');
        let spaces = false;
        for (let i = 0; i < chars.length; i += 1) {
            const c = chars[i];
            if (isSpace(c)) {
                if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpace(chars[i + 1]))
                    this.writeIndent();
                else
                    this.writeChar(c);
                spaces = true;
            }
            else {
                this.writeChar(c);
                this.indention = false;
                spaces = false;
            }
        }
        this.whitespace = false;
        this.indention = false;
    }
    writeSingleQuoted(chars, allowBreaks) {
        this.writeIndicator("'", true, false, false);
        let spaces = false;
        let breaks = false;
        for (let i = 0; i < chars.length; i += 1) {
            const c = chars[i];
            if (isSpace(c)) {
                if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && !isSpace(chars[i + 1]))
                    this.writeIndent();
                else
                    this.writeChar(c);
                spaces = true;
            }
            else if (isBreak(c)) {
                if (!breaks && c === 0x0a)
                    this.putBreak();
                this.writeBreak(c);
                this.indention = true;
                breaks = true;
            }
            else {
                if (breaks)
                    this.writeIndent();
                if (c === 0x27)
                    this.put("'");
                this.writeChar(c);
                this.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        this.writeIndicator("'", false, false, false);
        this.whitespace = false;
        this.indention = false;
    }
    writeDoubleQuoted(chars, allowBreaks) {
        this.writeIndicator('"', true, false, false);
        // libyaml checks for a byte order mark at the start of the value for every character.
        const startsWithBom = chars[0] === 0xfeff;
        let spaces = false;
        for (let i = 0; i < chars.length; i += 1) {
            const c = chars[i];
            if (!isPrintable(c) || startsWithBom || isBreak(c) || c === 0x22 || c === 0x5c) {
                const named = namedEscapes.get(c);
                this.put(`\\${named ?? (c <= 0xff ? `x${hex(c, 2)}` : c <= 0xffff ? `u${hex(c, 4)}` : `U${hex(c, 8)}`)}`);
                spaces = false;
            }
            else if (isSpace(c)) {
                if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
                    this.writeIndent();
                    if (isSpace(chars[i + 1]))
                        this.put('\\');
                }
                else
                    this.writeChar(c);
                spaces = true;
            }
            else {
                this.writeChar(c);
                spaces = false;
            }
        }
        this.writeIndicator('"', false, false, false);
        this.whitespace = false;
        this.indention = false;
    }
    writeLiteral(chars) {
        this.writeIndicator('|', true, false, false);
        if (isSpace(chars[0]) || isBreak(chars[0]))
            this.writeIndicator(String(BEST_INDENT), false, false, false);
        const last = chars.length - 1;
        if (!isBreak(chars[last]))
            this.writeIndicator('-', false, false, false);
        else if (last === 0 || isBreak(chars[last - 1]))
            this.writeIndicator('+', false, false, false);
        this.putBreak();
        this.indention = true;
        this.whitespace = true;
        let breaks = true;
        for (const c of chars) {
            if (isBreak(c)) {
                this.writeBreak(c);
                this.indention = true;
                breaks = true;
            }
            else {
                if (breaks)
                    this.writeIndent();
                this.writeChar(c);
                this.indention = false;
                breaks = false;
            }
        }
    }
}
/**
 * Prints YAML documents as go-yaml v2 does, remembering each string's analysis across
 * the documents it prints.
 */
class TimoniYamlPrinter {
    analyses = new Map();
    /** One value as sigs.k8s.io/yaml.Marshal prints it (ends with a line break). */
    marshal(value) {
        return new Emitter(this.analyses).document(value);
    }
    /** Objects as one multi-document text, `---` between them, as Timoni's build prints an instance. */
    marshalObjects(objects) {
        return objects.map((object) => this.marshal(object)).join('---\n');
    }
}

;// CONCATENATED MODULE: ./src/cli/commands.ts
// What each command does, once its flags are read (options.ts):
// - `vet` validates the bundle for every selected cluster of the runtime, as `timoni bundle
//   vet` does, and optionally prints the computed value per cluster;
// - `build` builds every instance from its module for each selected cluster and prints the
//   objects as multi-document YAML (with `# Cluster:` and `# Instance:` comments, as
//   `timoni bundle build` prints instances; each object exactly as sigs.k8s.io/yaml prints
//   it, see timoni-yaml.ts) or as JSON; `--mask-secrets` masks Secret data as Timoni v0.33;
// - `diff|apply|status|delete` reach the clusters through the fleet layer, which checks each
//   cluster's identity before anything is read, written or deleted there (a context that
//   reaches a cluster recorded under another runtime name fails that cluster). diff exits 0 in
//   sync, 1 on drift, 2 on failure (as `timoni bundle apply --dry-run --diff`); apply and
//   delete exit 2 when a cluster failed, was refused or was not reached, status 1 when an
//   instance is not deployed and 2 when a cluster could not be read (a 1 never hides a
//   failure, so that CI may read it as "drift" or "not deployed"); `-o json` prints the ChangeSet (diff, apply) or the
//   per-cluster results (delete). `status` alone prints Timoni's `bundle status` lines;
//   `status -o text|json` the state of each cluster x instance (../fleet/fleet-state.ts). Progress goes to stderr through CliLog: diff's clusters in runtime
//   order, each error once; delete's lines carry Timoni's `b:<bundle> > c:<cluster>` prefix.
// vet and build stay off clusters except to read runtime value queries (query-access.ts);
// values read from Secrets are redacted in what they print.




















// ---- vet
async function runVet(engine, args, io) {
    const inputs = readBundleInputs(engine, args, io.cwd, io.env);
    const { results, access } = await evaluateWithQueries(engine, inputs, args, io);
    const printValue = args.booleans.get('print-value') === true;
    if (inputs.output === 'json') {
        const clusters = results.map((result) => ({ name: result.cluster.name, group: result.cluster.group, bundle: redactStrings(result.value, access.redact) }));
        io.stdout(`${JSON.stringify({ clusters }, null, 2)}\n`);
        return 0;
    }
    for (const result of results) {
        if (printValue) {
            const prefix = inputs.runtime.isDefault ? '' : `${JSON.stringify(result.cluster.name)}: `;
            io.stdout(`${prefix}bundle: ${access.redact(result.cueText)}\n`);
            continue;
        }
        for (const instance of result.bundle.instances) {
            io.stderr(`${logPrefix(result.bundle.name, result.cluster.name, instance.name)} > instance is valid\n`);
        }
    }
    if (!printValue && results[0])
        io.stderr(`${logPrefix(results[0].bundle.name)} > bundle is valid\n`);
    return 0;
}
function commands_renderYaml(clusters, isDefault) {
    const printer = new TimoniYamlPrinter();
    const parts = [];
    for (const cluster of clusters) {
        for (const instance of cluster.instances) {
            const header = [...(isDefault ? [] : [`# Cluster: ${cluster.name}`]), `# Instance: ${instance.name}`].join('\n');
            const objects = sortForApply(instance.sets.flatMap((set) => set.objects));
            parts.push(`---\n${header}\n---\n${printer.marshalObjects(objects)}`);
        }
    }
    return parts.join('\n');
}
/** Each object as printed: registered secret values redacted, Secret data masked when asked. */
function printedSets(sets, redact, maskSecrets) {
    return sets.map((set) => ({
        ...set,
        objects: set.objects.map((object) => {
            const redacted = redactStrings(object, redact);
            return maskSecrets ? maskSecret(redacted) : redacted;
        }),
    }));
}
async function runBuild(engine, args, io) {
    const inputs = readBundleInputs(engine, args, io.cwd, io.env);
    const output = args.strings.get('output') ?? 'yaml';
    const maskSecrets = args.booleans.get('mask-secrets') === true;
    const { results, access } = await evaluateWithQueries(engine, inputs, args, io);
    const creds = args.strings.get('creds');
    const resolver = new ModuleResolver(engine, io.cwd, creds ? { credentials: creds } : {}, inputs.boundary);
    const kubeVersion = kubeVersionWithoutCluster(io.env);
    const builds = new InstanceBuilds(engine);
    const clusters = [];
    for (const result of results) {
        const instances = [];
        for (const instance of result.bundle.instances) {
            const module = await resolver.resolve(instance.module);
            const built = await builds.build(module, { name: instance.name, namespace: instance.namespace, values: instance.valuesCue, kubeVersion, ...(instance.locateValues ? { locateValues: instance.locateValues } : {}) });
            instances.push({
                name: instance.name,
                namespace: instance.namespace,
                module: { url: module.url, version: module.version, digest: module.digest, name: module.name },
                sets: printedSets(built.sets, access.redact, maskSecrets),
            });
        }
        clusters.push({ name: result.cluster.name, group: result.cluster.group, instances });
    }
    if (output === 'json')
        io.stdout(`${JSON.stringify({ clusters }, null, 2)}\n`);
    else
        io.stdout(commands_renderYaml(clusters, inputs.runtime.isDefault));
    return 0;
}
// ---- diff, apply, status, delete
/** A fleet run whose log prints clusters' groups in runtime order. */
function orderedRun(engine, args, io) {
    const log = new cli_io/* CliLog */.n(io);
    const run = fleetRunFromArgs(engine, args, io, log);
    log.order(selectClusters(run.evaluation.runtime, run.selector).map((cluster) => cluster.name));
    return { run, log };
}
/** A failed cluster's error, unless the fleet layer has logged it already. */
function reportClusterError(cluster, io, log) {
    if (cluster.error && !log.hasPrinted(cluster.error.message))
        io.stderr(`✗ cluster ${cluster.name}: ${cluster.error.step}: ${cluster.error.message}\n`);
}
const lines = (count) => (count === 1 ? '1 line' : `${count} lines`);
/**
 * The text `diff` prints for one cluster: each object that changes, under a
 * `# <cluster> · <instance> · <object> <action>` line, with its diff, or with a line saying
 * that its diff was too large to compute.
 */
function clusterDiffText(cluster) {
    let text = '';
    for (const instance of cluster.instances) {
        for (const change of instance.changes) {
            if (change.action === 'unchanged')
                continue;
            const ref = objectRef(change);
            if (change.diff)
                text += `# ${cluster.name} · ${instance.name} · ${ref} ${change.action}\n${change.diff}\n`;
            else if (change.diffTooLarge) {
                const { liveLines, desiredLines } = change.diffTooLarge;
                text += `# ${cluster.name} · ${instance.name} · ${ref} ${change.action}\n${ref} diff too large to compute (${lines(liveLines)} live, ${lines(desiredLines)} desired)\n`;
            }
        }
    }
    return text;
}
function objectRef(change) {
    return `${change.kind}/${change.namespace ? `${change.namespace}/` : ''}${change.name}`;
}
function printChanges(changeSet, io, log) {
    for (const cluster of changeSet.clusters) {
        const text = clusterDiffText(cluster);
        if (text)
            io.stdout(text);
        reportClusterError(cluster, io, log);
    }
}
/** `--changes-file PATH`: the ChangeSet JSON, as `-o json` prints it, written to PATH (relative to the current directory). */
function writeChangesFile(changeSet, args, io) {
    const path = args.strings.get('changes-file') ?? '';
    if (path === '')
        return;
    const target = (0,external_node_path_namespaceObject.resolve)(io.cwd, path);
    try {
        (0,external_node_fs_.mkdirSync)((0,external_node_path_namespaceObject.dirname)(target), { recursive: true });
        (0,external_node_fs_.writeFileSync)(target, `${JSON.stringify(changeSet, null, 2)}\n`);
    }
    catch (error) {
        throw new Error(`--changes-file ${path}: cannot write the ChangeSet: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
}
async function runDiff(engine, args, io) {
    const { run, log } = orderedRun(engine, args, io);
    const changeSet = await planFleet(run);
    log.flush();
    writeChangesFile(changeSet, args, io);
    if (args.strings.get('output') === 'json')
        io.stdout(`${JSON.stringify(changeSet, null, 2)}\n`);
    else
        printChanges(changeSet, io, log);
    if (changeSet.clusters.some((c) => c.status === 'failed'))
        return 2;
    return hasChanges(changeSet) ? 1 : 0;
}
async function runApply(engine, args, io) {
    const { run, log } = orderedRun(engine, args, io);
    // SIGINT / SIGTERM: the rollout stops cleanly (fleet/run.ts), is reported, and the command exits 130.
    if (io.cancellation)
        run.cancel = io.cancellation.signal;
    const changeSet = io.cancellation ? await io.cancellation.whileGraceful(() => rollOutFleet(run)) : await rollOutFleet(run);
    log.flush();
    writeChangesFile(changeSet, args, io);
    if (args.strings.get('output') === 'json')
        io.stdout(`${JSON.stringify(changeSet, null, 2)}\n`);
    for (const cluster of changeSet.clusters)
        reportClusterError(cluster, io, log);
    const skipped = changeSet.clusters.filter((c) => c.status === 'skipped').map((c) => c.name);
    if (skipped.length > 0 && !log.hasPrinted(`not reached: ${skipped.join(', ')}`))
        io.stderr(`not reached: ${skipped.join(', ')}\n`);
    if (io.cancellation?.cancelled)
        return cancellation/* CANCELLED_EXIT_CODE */.pL;
    return changeSet.clusters.some((c) => c.status === 'failed' || c.status === 'skipped') ? 2 : 0;
}
/**
 * `status -o text|json`: the state of every cluster x instance (fleet-state.ts), as a table
 * or as JSON. Exits 0 when every instance is deployed, 1 when an instance is not (not
 * installed, stale, failed), 2 when it cannot run or a state is unknown (a cluster not
 * reached or refused, an instance that could not be read).
 */
async function runFleetState(engine, args, io, output) {
    let state;
    try {
        const { run, log } = orderedRun(engine, args, io);
        state = await fleetState(run);
        log.flush();
    }
    catch (error) {
        io.stderr(`✗ ${error instanceof Error ? error.message : String(error)}\n`);
        return 2;
    }
    if (output === 'json')
        io.stdout(`${JSON.stringify(state, null, 2)}\n`);
    else {
        io.stdout(fleetStateTable(state));
        io.stderr(`${stateCounts(state)}\n`);
    }
    if (state.instances.some((row) => row.state === 'unknown'))
        return 2;
    return state.instances.every((row) => row.state === 'deployed') ? 0 : 1;
}
async function runStatus(engine, args, io) {
    // Without -o: Timoni's `bundle status` lines, as Timoni prints them.
    const output = args.strings.get('output') ?? '';
    if (output !== '')
        return runFleetState(engine, args, io, output);
    const results = await fleetStatus(fleetRunFromArgs(engine, args, io, new cli_io/* CliLog */.n(io)));
    // A refused or unreachable cluster's error is on stderr already (the fleet layer logs it), and here in Timoni's form.
    for (const { cluster, bundle, result, error } of results) {
        // A cluster failed before the bundle's name was known has no `b:` part (not an empty one).
        const head = `${bundle ? `b:${bundle} > ` : ''}c:${cluster.name}`;
        if (error) {
            io.stdout(`${head} > ✗ ${error}\n`);
            continue;
        }
        if (!result || result.length === 0)
            io.stdout(`${head} > ✗ no instances found in bundle\n`);
        for (const instance of result ?? []) {
            const prefix = `${head} > i:${instance.name}`;
            io.stdout(`${prefix} > last applied ${instance.lastApplied}\n${prefix} > module ${instance.module.url}:${instance.module.version}\n${prefix} > digest ${instance.module.digest}\n`);
            for (const image of instance.images)
                io.stdout(`${prefix} > container image ${image}\n`);
            for (const object of instance.objects)
                io.stdout(`${prefix} > ${formatRef(object.object)} ${object.status} ${object.message}\n`);
        }
    }
    // A cluster not read is a failure (2); one without the bundle's instances (Timoni's error) is not deployed (1).
    if (results.some((r) => r.error))
        return 2;
    return results.some((r) => !r.result || r.result.length === 0) ? 1 : 0;
}
async function runDelete(engine, args, io) {
    const log = new cli_io/* CliLog */.n(io);
    const results = await fleetDelete(fleetRunFromArgs(engine, args, io, log));
    if (args.strings.get('output') === 'json')
        io.stdout(`${JSON.stringify({ clusters: results.map((r) => ({ name: r.cluster.name, bundle: r.bundle, instances: r.result ?? [], error: r.error ?? null })) }, null, 2)}\n`);
    // A cluster refused on its identity (or not reached) was logged by the fleet layer, as diff logs it: once.
    for (const { cluster, error } of results)
        if (error && !log.hasPrinted(error))
            io.stderr(`✗ cluster ${cluster.name}: ${error}\n`);
    return results.some((r) => r.error) ? 2 : 0;
}

;// CONCATENATED MODULE: ./package.json
const package_namespaceObject = {"rE":"0.1.0"};
;// CONCATENATED MODULE: ./src/cli/version.ts
// `timoni-fleet version` (and `--version`): the version of timoni-fleet, of the CUE it
// evaluates with (cuelang.org/go, as the engine reports it), and which build of the engine
// runs here: the native program where this platform has a working one, else WebAssembly
// (src/cue/engine.ts; TIMONI_FLEET_CUE_ENGINE forces one). A bug report needs all three.



const ENGINE_NAMES = { native: 'native', wasm: 'WebAssembly' };
/** The lines `version` prints, from what the engine reports. */
function versionText(cue, engine, nativeUnavailable) {
    const why = engine === 'wasm' && nativeUnavailable ? ` (the native engine did not start: ${nativeUnavailable})` : '';
    return `timoni-fleet ${package_namespaceObject.rE}\nCUE ${cue}\nengine ${ENGINE_NAMES[engine]}${why}\n`;
}
/** Prints the version; `rest` holds the words after `version`, of which there must be none. */
async function printVersion(rest, io) {
    if (rest.length > 0) {
        io.stderr(`✗ unexpected argument ${(0,display_text/* quote */.h)(rest[0])}: version takes none\n`);
        return 2;
    }
    try {
        const engine = await loadCueEngine();
        io.stdout(versionText(engine.version().cue, engine.kind, nativeEngineUnavailable()));
        return 0;
    }
    catch (error) {
        // The version of timoni-fleet is known without the engine; say why the rest is not.
        io.stdout(`timoni-fleet ${package_namespaceObject.rE}\n`);
        io.stderr(`✗ the CUE engine did not start: ${error instanceof Error ? error.message : String(error)}\n`);
        return 2;
    }
}

;// CONCATENATED MODULE: ./src/cli/run.ts
// Dispatches `timoni-fleet <command> [flags]` to its command (and `version`), maps outcomes to exit codes,
// and turns a failed command into what the user reads: the message on stderr, every CUE
// diagnostic with its file, line and field, and, inside GitHub Actions, an annotation on
// the file and line for each.







const commands = {
    vet: { summary: 'Validate a bundle for each cluster of the runtime (exit 0 valid, 1 failure)', flags: vetFlags, failureCode: 1, run: runVet },
    build: { summary: 'Build the Kubernetes objects of every instance for each cluster (exit 0 built, 1 failure)', flags: buildFlags, failureCode: 1, run: runBuild },
    diff: { summary: 'Show what would change on each cluster (exit 0 in sync, 1 drift, 2 failure)', flags: fleetFlagsFor('diff'), failureCode: 2, run: runDiff },
    apply: { summary: 'Apply the bundle cluster by cluster in runtime order (exit 0 applied, 2 failure)', flags: fleetFlagsFor('apply'), failureCode: 2, run: runApply },
    status: { summary: "Show the bundle's instances and their objects on each cluster (exit 0 all deployed, 1 not all deployed, 2 failure)", flags: fleetFlagsFor('status'), failureCode: 2, run: runStatus },
    delete: { summary: "Delete the bundle's instances from each cluster (exit 0 deleted, 2 failure)", flags: fleetFlagsFor('delete'), failureCode: 2, run: runDelete },
};
function usage() {
    const lines = ['Usage: timoni-fleet <command> -f bundle.cue [-r runtime.cue] [flags]', '', 'Commands:'];
    for (const [name, command] of Object.entries(commands))
        lines.push(`  ${name.padEnd(10)} ${command.summary}`);
    lines.push(`  ${'version'.padEnd(10)} Print the version of timoni-fleet, of CUE and the CUE engine in use (also --version)`);
    lines.push('', 'Run `timoni-fleet <command> --help` for its flags.');
    return `${lines.join('\n')}\n`;
}
/** The flags that `command` does not take, each with the commands that do. */
function othersFlags(command) {
    const own = new Set(commands[command]?.flags.map((flag) => flag.name));
    const others = new Map();
    for (const [name, { flags }] of Object.entries(commands)) {
        for (const flag of flags)
            if (!own.has(flag.name))
                others.set(flag.name, [...(others.get(flag.name) ?? []), name]);
    }
    return others;
}
function reportError(error, io) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`✗ ${message}\n`);
    if (io.env.GITHUB_ACTIONS === 'true')
        io.stdout(errorAnnotations(error));
}
async function runCli(argv, io) {
    const [name, ...rest] = argv;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
        io.stdout(usage());
        return name === undefined ? 2 : 0;
    }
    if (name === 'version' || name === '--version')
        return printVersion(rest, io);
    const command = commands[name];
    if (!command) {
        const nearest = nearestName(name, [...Object.keys(commands), 'version']);
        io.stderr(`✗ unknown command ${(0,display_text/* quote */.h)(name)}${nearest ? `: did you mean ${nearest}?` : ''}\n${usage()}`);
        return 2;
    }
    if (rest.includes('--help') || rest.includes('-h')) {
        io.stdout(`Usage: timoni-fleet ${name} [flags]\n\n${command.summary}\n\nFlags:\n${formatFlagHelp(command.flags)}\n`);
        return 0;
    }
    try {
        const args = parseArguments(rest, command.flags, { command: name, otherCommandsFlags: othersFlags(name) });
        const engine = await loadCueEngine(command.flags.some((flag) => flag.name === 'cue-memory-limit') ? { memoryLimitMiB: cueMemoryLimit(args) } : {});
        return await command.run(engine, args, io);
    }
    catch (error) {
        reportError(error, io);
        return command.failureCode;
    }
}


/***/ }),

/***/ 1849:
/***/ ((__unused_webpack_module, __webpack_exports__, __nccwpck_require__) => {

/* harmony export */ __nccwpck_require__.d(__webpack_exports__, {
/* harmony export */   U: () => (/* binding */ escapeControls),
/* harmony export */   h: () => (/* binding */ quote)
/* harmony export */ });
// Text from the user's files, shown to a person: one rule for every log line and terminal
// line (the Actions log, the CLI's output), and one for a name or value quoted in a message.
//
// A bundle, runtime or module is written by a pull request's author; what it names (an
// object, an instance, a cluster, a label) and what it holds (values, CUE error texts) can
// carry any character. Printed raw, an ESC or CSI (U+009B) starts an ANSI sequence that a
// terminal or the Actions log viewer interprets (colours, cursor moves that overwrite what
// was printed before, hyperlinks), and a line break or separator starts a new line that
// could read as a workflow command or as our own output. So:
//   - a log line shows every control character escaped, JSON-style (`\u001b[31m`), except
//     tab and the line break itself: C0 (U+0000-U+001F), DEL, C1 (U+0080-U+009F, NEL and
//     CSI among them), and the Unicode line and paragraph separators (U+2028, U+2029); a
//     CRLF is a line break, a lone CR is shown escaped (a terminal would return the cursor
//     and print over the line);
//   - a name or value quoted in a message is JSON-quoted, and beyond what JSON escapes
//     (C0, `"` and `\`), DEL, C1, the separators and the invisible format characters
//     (bidirectional controls, zero-width characters, U+FEFF: Unicode category Cf) are
//     escaped as well, so that what a reader sees between the quotes is what the name is.
// An ordinary name reads the same as before: `"web"` is `"web"`.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const LOG_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\r\u2028\u2029]/g;
const QUOTED_INVISIBLE = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;
function unicodeEscape(character) {
    let escaped = '';
    // Code units, as JSON writes them: a character beyond U+FFFF becomes its surrogate pair.
    for (let i = 0; i < character.length; i++)
        escaped += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return escaped;
}
/** Text as a log or terminal line shows it: control characters and separators escaped, line breaks kept (CRLF as LF). */
function escapeControls(text) {
    return text.replace(/\r\n/g, '\n').replace(LOG_CONTROL, unicodeEscape);
}
/** A name or value for a message: JSON-quoted, with C1 controls, separators and invisible format characters escaped. */
function quote(value) {
    return JSON.stringify(value).replace(QUOTED_INVISIBLE, unicodeEscape);
}


/***/ }),

/***/ 181:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("buffer");

/***/ }),

/***/ 7598:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:crypto");

/***/ }),

/***/ 3024:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("node:fs");

/***/ }),

/***/ 932:
/***/ ((module) => {

module.exports = __WEBPACK_EXTERNAL_createRequire(import.meta.url)("process");

/***/ }),

/***/ 7349:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var resolveBlockMap = __nccwpck_require__(7103);
var resolveBlockSeq = __nccwpck_require__(334);
var resolveFlowCollection = __nccwpck_require__(3142);

function resolveCollection(CN, ctx, token, onError, tagName, tag) {
    const coll = token.type === 'block-map'
        ? resolveBlockMap.resolveBlockMap(CN, ctx, token, onError, tag)
        : token.type === 'block-seq'
            ? resolveBlockSeq.resolveBlockSeq(CN, ctx, token, onError, tag)
            : resolveFlowCollection.resolveFlowCollection(CN, ctx, token, onError, tag);
    const Coll = coll.constructor;
    // If we got a tagName matching the class, or the tag name is '!',
    // then use the tagName from the node class used to create it.
    if (tagName === '!' || tagName === Coll.tagName) {
        coll.tag = Coll.tagName;
        return coll;
    }
    if (tagName)
        coll.tag = tagName;
    return coll;
}
function composeCollection(CN, ctx, token, props, onError) {
    const tagToken = props.tag;
    const tagName = !tagToken
        ? null
        : ctx.directives.tagName(tagToken.source, msg => onError(tagToken, 'TAG_RESOLVE_FAILED', msg));
    if (token.type === 'block-seq') {
        const { anchor, newlineAfterProp: nl } = props;
        const lastProp = anchor && tagToken
            ? anchor.offset > tagToken.offset
                ? anchor
                : tagToken
            : (anchor ?? tagToken);
        if (lastProp && (!nl || nl.offset < lastProp.offset)) {
            const message = 'Missing newline after block sequence props';
            onError(lastProp, 'MISSING_CHAR', message);
        }
    }
    const expType = token.type === 'block-map'
        ? 'map'
        : token.type === 'block-seq'
            ? 'seq'
            : token.start.source === '{'
                ? 'map'
                : 'seq';
    // shortcut: check if it's a generic YAMLMap or YAMLSeq
    // before jumping into the custom tag logic.
    if (!tagToken ||
        !tagName ||
        tagName === '!' ||
        (tagName === YAMLMap.YAMLMap.tagName && expType === 'map') ||
        (tagName === YAMLSeq.YAMLSeq.tagName && expType === 'seq')) {
        return resolveCollection(CN, ctx, token, onError, tagName);
    }
    let tag = ctx.schema.tags.find(t => t.tag === tagName && t.collection === expType);
    if (!tag) {
        const kt = ctx.schema.knownTags[tagName];
        if (kt?.collection === expType) {
            ctx.schema.tags.push(Object.assign({}, kt, { default: false }));
            tag = kt;
        }
        else {
            if (kt) {
                onError(tagToken, 'BAD_COLLECTION_TYPE', `${kt.tag} used for ${expType} collection, but expects ${kt.collection ?? 'scalar'}`, true);
            }
            else {
                onError(tagToken, 'TAG_RESOLVE_FAILED', `Unresolved tag: ${tagName}`, true);
            }
            return resolveCollection(CN, ctx, token, onError, tagName);
        }
    }
    const coll = resolveCollection(CN, ctx, token, onError, tagName, tag);
    const res = tag.resolve?.(coll, msg => onError(tagToken, 'TAG_RESOLVE_FAILED', msg), ctx.options) ?? coll;
    const node = identity.isNode(res)
        ? res
        : new Scalar.Scalar(res);
    node.range = coll.range;
    node.tag = tagName;
    if (tag?.format)
        node.format = tag.format;
    return node;
}

exports.composeCollection = composeCollection;


/***/ }),

/***/ 3683:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Document = __nccwpck_require__(3021);
var composeNode = __nccwpck_require__(5937);
var resolveEnd = __nccwpck_require__(7788);
var resolveProps = __nccwpck_require__(4631);

function composeDoc(options, directives, { offset, start, value, end }, onError) {
    const opts = Object.assign({ _directives: directives }, options);
    const doc = new Document.Document(undefined, opts);
    const ctx = {
        atKey: false,
        atRoot: true,
        directives: doc.directives,
        options: doc.options,
        schema: doc.schema
    };
    const props = resolveProps.resolveProps(start, {
        indicator: 'doc-start',
        next: value ?? end?.[0],
        offset,
        onError,
        parentIndent: 0,
        startOnNewline: true
    });
    if (props.found) {
        doc.directives.docStart = true;
        if (value &&
            (value.type === 'block-map' || value.type === 'block-seq') &&
            !props.hasNewline)
            onError(props.end, 'MISSING_CHAR', 'Block collection cannot start on same line with directives-end marker');
    }
    // @ts-expect-error If Contents is set, let's trust the user
    doc.contents = value
        ? composeNode.composeNode(ctx, value, props, onError)
        : composeNode.composeEmptyNode(ctx, props.end, start, null, props, onError);
    const contentEnd = doc.contents.range[2];
    const re = resolveEnd.resolveEnd(end, contentEnd, false, onError);
    if (re.comment)
        doc.comment = re.comment;
    doc.range = [offset, contentEnd, re.offset];
    return doc;
}

exports.composeDoc = composeDoc;


/***/ }),

/***/ 5937:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Alias = __nccwpck_require__(4065);
var identity = __nccwpck_require__(1127);
var composeCollection = __nccwpck_require__(7349);
var composeScalar = __nccwpck_require__(5413);
var resolveEnd = __nccwpck_require__(7788);
var utilEmptyScalarPosition = __nccwpck_require__(2599);

const CN = { composeNode, composeEmptyNode };
function composeNode(ctx, token, props, onError) {
    const atKey = ctx.atKey;
    const { spaceBefore, comment, anchor, tag } = props;
    let node;
    let isSrcToken = true;
    switch (token.type) {
        case 'alias':
            node = composeAlias(ctx, token, onError);
            if (anchor || tag)
                onError(token, 'ALIAS_PROPS', 'An alias node must not specify any properties');
            break;
        case 'scalar':
        case 'single-quoted-scalar':
        case 'double-quoted-scalar':
        case 'block-scalar':
            node = composeScalar.composeScalar(ctx, token, tag, onError);
            if (anchor)
                node.anchor = anchor.source.substring(1);
            break;
        case 'block-map':
        case 'block-seq':
        case 'flow-collection':
            try {
                node = composeCollection.composeCollection(CN, ctx, token, props, onError);
                if (anchor)
                    node.anchor = anchor.source.substring(1);
            }
            catch (error) {
                // Almost certainly here due to a stack overflow
                const message = error instanceof Error ? error.message : String(error);
                onError(token, 'RESOURCE_EXHAUSTION', message);
            }
            break;
        default: {
            const message = token.type === 'error'
                ? token.message
                : `Unsupported token (type: ${token.type})`;
            onError(token, 'UNEXPECTED_TOKEN', message);
            isSrcToken = false;
        }
    }
    node ?? (node = composeEmptyNode(ctx, token.offset, undefined, null, props, onError));
    if (anchor && node.anchor === '')
        onError(anchor, 'BAD_ALIAS', 'Anchor cannot be an empty string');
    if (atKey &&
        ctx.options.stringKeys &&
        (!identity.isScalar(node) ||
            typeof node.value !== 'string' ||
            (node.tag && node.tag !== 'tag:yaml.org,2002:str'))) {
        const msg = 'With stringKeys, all keys must be strings';
        onError(tag ?? token, 'NON_STRING_KEY', msg);
    }
    if (spaceBefore)
        node.spaceBefore = true;
    if (comment) {
        if (token.type === 'scalar' && token.source === '')
            node.comment = comment;
        else
            node.commentBefore = comment;
    }
    // @ts-expect-error Type checking misses meaning of isSrcToken
    if (ctx.options.keepSourceTokens && isSrcToken)
        node.srcToken = token;
    return node;
}
function composeEmptyNode(ctx, offset, before, pos, { spaceBefore, comment, anchor, tag, end }, onError) {
    const token = {
        type: 'scalar',
        offset: utilEmptyScalarPosition.emptyScalarPosition(offset, before, pos),
        indent: -1,
        source: ''
    };
    const node = composeScalar.composeScalar(ctx, token, tag, onError);
    if (anchor) {
        node.anchor = anchor.source.substring(1);
        if (node.anchor === '')
            onError(anchor, 'BAD_ALIAS', 'Anchor cannot be an empty string');
    }
    if (spaceBefore)
        node.spaceBefore = true;
    if (comment) {
        node.comment = comment;
        node.range[2] = end;
    }
    return node;
}
function composeAlias({ options }, { offset, source, end }, onError) {
    const alias = new Alias.Alias(source.substring(1));
    if (alias.source === '')
        onError(offset, 'BAD_ALIAS', 'Alias cannot be an empty string');
    if (alias.source.endsWith(':'))
        onError(offset + source.length - 1, 'BAD_ALIAS', 'Alias ending in : is ambiguous', true);
    const valueEnd = offset + source.length;
    const re = resolveEnd.resolveEnd(end, valueEnd, options.strict, onError);
    alias.range = [offset, valueEnd, re.offset];
    if (re.comment)
        alias.comment = re.comment;
    return alias;
}

exports.composeEmptyNode = composeEmptyNode;
exports.composeNode = composeNode;


/***/ }),

/***/ 5413:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var resolveBlockScalar = __nccwpck_require__(8913);
var resolveFlowScalar = __nccwpck_require__(6842);

function composeScalar(ctx, token, tagToken, onError) {
    const { value, type, comment, range } = token.type === 'block-scalar'
        ? resolveBlockScalar.resolveBlockScalar(ctx, token, onError)
        : resolveFlowScalar.resolveFlowScalar(token, ctx.options.strict, onError);
    const tagName = tagToken
        ? ctx.directives.tagName(tagToken.source, msg => onError(tagToken, 'TAG_RESOLVE_FAILED', msg))
        : null;
    let tag;
    if (ctx.options.stringKeys && ctx.atKey) {
        tag = ctx.schema[identity.SCALAR];
    }
    else if (tagName)
        tag = findScalarTagByName(ctx.schema, value, tagName, tagToken, onError);
    else if (token.type === 'scalar')
        tag = findScalarTagByTest(ctx, value, token, onError);
    else
        tag = ctx.schema[identity.SCALAR];
    let scalar;
    try {
        const res = tag.resolve(value, msg => onError(tagToken ?? token, 'TAG_RESOLVE_FAILED', msg), ctx.options);
        scalar = identity.isScalar(res) ? res : new Scalar.Scalar(res);
    }
    catch (error) {
        const msg = error instanceof Error ? error.message : String(error);
        onError(tagToken ?? token, 'TAG_RESOLVE_FAILED', msg);
        scalar = new Scalar.Scalar(value);
    }
    scalar.range = range;
    scalar.source = value;
    if (type)
        scalar.type = type;
    if (tagName)
        scalar.tag = tagName;
    if (tag.format)
        scalar.format = tag.format;
    if (comment)
        scalar.comment = comment;
    return scalar;
}
function findScalarTagByName(schema, value, tagName, tagToken, onError) {
    if (tagName === '!')
        return schema[identity.SCALAR]; // non-specific tag
    const matchWithTest = [];
    for (const tag of schema.tags) {
        if (!tag.collection && tag.tag === tagName) {
            if (tag.default && tag.test)
                matchWithTest.push(tag);
            else
                return tag;
        }
    }
    for (const tag of matchWithTest)
        if (tag.test?.test(value))
            return tag;
    const kt = schema.knownTags[tagName];
    if (kt && !kt.collection) {
        // Ensure that the known tag is available for stringifying,
        // but does not get used by default.
        schema.tags.push(Object.assign({}, kt, { default: false, test: undefined }));
        return kt;
    }
    onError(tagToken, 'TAG_RESOLVE_FAILED', `Unresolved tag: ${tagName}`, tagName !== 'tag:yaml.org,2002:str');
    return schema[identity.SCALAR];
}
function findScalarTagByTest({ atKey, directives, schema }, value, token, onError) {
    const tag = schema.tags.find(tag => (tag.default === true || (atKey && tag.default === 'key')) &&
        tag.test?.test(value)) || schema[identity.SCALAR];
    if (schema.compat) {
        const compat = schema.compat.find(tag => tag.default && tag.test?.test(value)) ??
            schema[identity.SCALAR];
        if (tag.tag !== compat.tag) {
            const ts = directives.tagString(tag.tag);
            const cs = directives.tagString(compat.tag);
            const msg = `Value may be parsed as either ${ts} or ${cs}`;
            onError(token, 'TAG_RESOLVE_FAILED', msg, true);
        }
    }
    return tag;
}

exports.composeScalar = composeScalar;


/***/ }),

/***/ 9984:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_process = __nccwpck_require__(932);
var directives = __nccwpck_require__(1342);
var Document = __nccwpck_require__(3021);
var errors = __nccwpck_require__(1464);
var identity = __nccwpck_require__(1127);
var composeDoc = __nccwpck_require__(3683);
var resolveEnd = __nccwpck_require__(7788);

function getErrorPos(src) {
    if (typeof src === 'number')
        return [src, src + 1];
    if (Array.isArray(src))
        return src.length === 2 ? src : [src[0], src[1]];
    const { offset, source } = src;
    return [offset, offset + (typeof source === 'string' ? source.length : 1)];
}
function parsePrelude(prelude) {
    let comment = '';
    let atComment = false;
    let afterEmptyLine = false;
    for (let i = 0; i < prelude.length; ++i) {
        const source = prelude[i];
        switch (source[0]) {
            case '#':
                comment +=
                    (comment === '' ? '' : afterEmptyLine ? '\n\n' : '\n') +
                        (source.substring(1) || ' ');
                atComment = true;
                afterEmptyLine = false;
                break;
            case '%':
                if (prelude[i + 1]?.[0] !== '#')
                    i += 1;
                atComment = false;
                break;
            default:
                // This may be wrong after doc-end, but in that case it doesn't matter
                if (!atComment)
                    afterEmptyLine = true;
                atComment = false;
        }
    }
    return { comment, afterEmptyLine };
}
/**
 * Compose a stream of CST nodes into a stream of YAML Documents.
 *
 * ```ts
 * import { Composer, Parser } from 'yaml'
 *
 * const src: string = ...
 * const tokens = new Parser().parse(src)
 * const docs = new Composer().compose(tokens)
 * ```
 */
class Composer {
    constructor(options = {}) {
        this.doc = null;
        this.atDirectives = false;
        this.prelude = [];
        this.errors = [];
        this.warnings = [];
        this.onError = (source, code, message, warning) => {
            const pos = getErrorPos(source);
            if (warning)
                this.warnings.push(new errors.YAMLWarning(pos, code, message));
            else
                this.errors.push(new errors.YAMLParseError(pos, code, message));
        };
        // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing
        this.directives = new directives.Directives({ version: options.version || '1.2' });
        this.options = options;
    }
    decorate(doc, afterDoc) {
        const { comment, afterEmptyLine } = parsePrelude(this.prelude);
        //console.log({ dc: doc.comment, prelude, comment })
        if (comment) {
            const dc = doc.contents;
            if (afterDoc) {
                doc.comment = doc.comment ? `${doc.comment}\n${comment}` : comment;
            }
            else if (afterEmptyLine || doc.directives.docStart || !dc) {
                doc.commentBefore = comment;
            }
            else if (identity.isCollection(dc) && !dc.flow && dc.items.length > 0) {
                let it = dc.items[0];
                if (identity.isPair(it))
                    it = it.key;
                const cb = it.commentBefore;
                it.commentBefore = cb ? `${comment}\n${cb}` : comment;
            }
            else {
                const cb = dc.commentBefore;
                dc.commentBefore = cb ? `${comment}\n${cb}` : comment;
            }
        }
        if (afterDoc) {
            for (let i = 0; i < this.errors.length; ++i)
                doc.errors.push(this.errors[i]);
            for (let i = 0; i < this.warnings.length; ++i)
                doc.warnings.push(this.warnings[i]);
        }
        else {
            doc.errors = this.errors;
            doc.warnings = this.warnings;
        }
        this.prelude = [];
        this.errors = [];
        this.warnings = [];
    }
    /**
     * Current stream status information.
     *
     * Mostly useful at the end of input for an empty stream.
     */
    streamInfo() {
        return {
            comment: parsePrelude(this.prelude).comment,
            directives: this.directives,
            errors: this.errors,
            warnings: this.warnings
        };
    }
    /**
     * Compose tokens into documents.
     *
     * @param forceDoc - If the stream contains no document, still emit a final document including any comments and directives that would be applied to a subsequent document.
     * @param endOffset - Should be set if `forceDoc` is also set, to set the document range end and to indicate errors correctly.
     */
    *compose(tokens, forceDoc = false, endOffset = -1) {
        for (const token of tokens)
            yield* this.next(token);
        yield* this.end(forceDoc, endOffset);
    }
    /** Advance the composer by one CST token. */
    *next(token) {
        if (node_process.env.LOG_STREAM)
            console.dir(token, { depth: null });
        switch (token.type) {
            case 'directive':
                this.directives.add(token.source, (offset, message, warning) => {
                    const pos = getErrorPos(token);
                    pos[0] += offset;
                    this.onError(pos, 'BAD_DIRECTIVE', message, warning);
                });
                this.prelude.push(token.source);
                this.atDirectives = true;
                break;
            case 'document': {
                const doc = composeDoc.composeDoc(this.options, this.directives, token, this.onError);
                if (this.atDirectives && !doc.directives.docStart)
                    this.onError(token, 'MISSING_CHAR', 'Missing directives-end/doc-start indicator line');
                this.decorate(doc, false);
                if (this.doc)
                    yield this.doc;
                this.doc = doc;
                this.atDirectives = false;
                break;
            }
            case 'byte-order-mark':
            case 'space':
                break;
            case 'comment':
            case 'newline':
                this.prelude.push(token.source);
                break;
            case 'error': {
                const msg = token.source
                    ? `${token.message}: ${JSON.stringify(token.source)}`
                    : token.message;
                const error = new errors.YAMLParseError(getErrorPos(token), 'UNEXPECTED_TOKEN', msg);
                if (this.atDirectives || !this.doc)
                    this.errors.push(error);
                else
                    this.doc.errors.push(error);
                break;
            }
            case 'doc-end': {
                if (!this.doc) {
                    const msg = 'Unexpected doc-end without preceding document';
                    this.errors.push(new errors.YAMLParseError(getErrorPos(token), 'UNEXPECTED_TOKEN', msg));
                    break;
                }
                this.doc.directives.docEnd = true;
                const end = resolveEnd.resolveEnd(token.end, token.offset + token.source.length, this.doc.options.strict, this.onError);
                this.decorate(this.doc, true);
                if (end.comment) {
                    const dc = this.doc.comment;
                    this.doc.comment = dc ? `${dc}\n${end.comment}` : end.comment;
                }
                this.doc.range[2] = end.offset;
                break;
            }
            default:
                this.errors.push(new errors.YAMLParseError(getErrorPos(token), 'UNEXPECTED_TOKEN', `Unsupported token ${token.type}`));
        }
    }
    /**
     * Call at end of input to yield any remaining document.
     *
     * @param forceDoc - If the stream contains no document, still emit a final document including any comments and directives that would be applied to a subsequent document.
     * @param endOffset - Should be set if `forceDoc` is also set, to set the document range end and to indicate errors correctly.
     */
    *end(forceDoc = false, endOffset = -1) {
        if (this.doc) {
            this.decorate(this.doc, true);
            yield this.doc;
            this.doc = null;
        }
        else if (forceDoc) {
            const opts = Object.assign({ _directives: this.directives }, this.options);
            const doc = new Document.Document(undefined, opts);
            if (this.atDirectives)
                this.onError(endOffset, 'MISSING_CHAR', 'Missing directives-end indicator line');
            doc.range = [0, endOffset, endOffset];
            this.decorate(doc, false);
            yield doc;
        }
    }
}

exports.Composer = Composer;


/***/ }),

/***/ 7103:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Pair = __nccwpck_require__(7165);
var YAMLMap = __nccwpck_require__(4454);
var resolveProps = __nccwpck_require__(4631);
var utilContainsNewline = __nccwpck_require__(9499);
var utilFlowIndentCheck = __nccwpck_require__(4051);
var utilMapIncludes = __nccwpck_require__(1187);

const startColMsg = 'All mapping items must start at the same column';
function resolveBlockMap({ composeNode, composeEmptyNode }, ctx, bm, onError, tag) {
    const NodeClass = tag?.nodeClass ?? YAMLMap.YAMLMap;
    const map = new NodeClass(ctx.schema);
    if (ctx.atRoot)
        ctx.atRoot = false;
    let offset = bm.offset;
    let commentEnd = null;
    for (const collItem of bm.items) {
        const { start, key, sep, value } = collItem;
        // key properties
        const keyProps = resolveProps.resolveProps(start, {
            indicator: 'explicit-key-ind',
            next: key ?? sep?.[0],
            offset,
            onError,
            parentIndent: bm.indent,
            startOnNewline: true
        });
        const implicitKey = !keyProps.found;
        if (implicitKey) {
            if (key) {
                if (key.type === 'block-seq')
                    onError(offset, 'BLOCK_AS_IMPLICIT_KEY', 'A block sequence may not be used as an implicit map key');
                else if ('indent' in key && key.indent !== bm.indent)
                    onError(offset, 'BAD_INDENT', startColMsg);
            }
            if (!keyProps.anchor && !keyProps.tag && !sep) {
                commentEnd = keyProps.end;
                if (keyProps.comment) {
                    if (map.comment)
                        map.comment += '\n' + keyProps.comment;
                    else
                        map.comment = keyProps.comment;
                }
                continue;
            }
            if (keyProps.newlineAfterProp || utilContainsNewline.containsNewline(key)) {
                onError(key ?? start[start.length - 1], 'MULTILINE_IMPLICIT_KEY', 'Implicit keys need to be on a single line');
            }
        }
        else if (keyProps.found?.indent !== bm.indent) {
            onError(offset, 'BAD_INDENT', startColMsg);
        }
        // key value
        ctx.atKey = true;
        const keyStart = keyProps.end;
        const keyNode = key
            ? composeNode(ctx, key, keyProps, onError)
            : composeEmptyNode(ctx, keyStart, start, null, keyProps, onError);
        if (ctx.schema.compat)
            utilFlowIndentCheck.flowIndentCheck(bm.indent, key, onError);
        ctx.atKey = false;
        if (utilMapIncludes.mapIncludes(ctx, map.items, keyNode))
            onError(keyStart, 'DUPLICATE_KEY', 'Map keys must be unique');
        // value properties
        const valueProps = resolveProps.resolveProps(sep ?? [], {
            indicator: 'map-value-ind',
            next: value,
            offset: keyNode.range[2],
            onError,
            parentIndent: bm.indent,
            startOnNewline: !key || key.type === 'block-scalar'
        });
        offset = valueProps.end;
        if (valueProps.found) {
            if (implicitKey) {
                if (value?.type === 'block-map' && !valueProps.hasNewline)
                    onError(offset, 'BLOCK_AS_IMPLICIT_KEY', 'Nested mappings are not allowed in compact mappings');
                if (ctx.options.strict &&
                    keyProps.start < valueProps.found.offset - 1024)
                    onError(keyNode.range, 'KEY_OVER_1024_CHARS', 'The : indicator must be at most 1024 chars after the start of an implicit block mapping key');
            }
            // value value
            const valueNode = value
                ? composeNode(ctx, value, valueProps, onError)
                : composeEmptyNode(ctx, offset, sep, null, valueProps, onError);
            if (ctx.schema.compat)
                utilFlowIndentCheck.flowIndentCheck(bm.indent, value, onError);
            offset = valueNode.range[2];
            const pair = new Pair.Pair(keyNode, valueNode);
            if (ctx.options.keepSourceTokens)
                pair.srcToken = collItem;
            map.items.push(pair);
        }
        else {
            // key with no value
            if (implicitKey)
                onError(keyNode.range, 'MISSING_CHAR', 'Implicit map keys need to be followed by map values');
            if (valueProps.comment) {
                if (keyNode.comment)
                    keyNode.comment += '\n' + valueProps.comment;
                else
                    keyNode.comment = valueProps.comment;
            }
            const pair = new Pair.Pair(keyNode);
            if (ctx.options.keepSourceTokens)
                pair.srcToken = collItem;
            map.items.push(pair);
        }
    }
    if (commentEnd && commentEnd < offset)
        onError(commentEnd, 'IMPOSSIBLE', 'Map comment with trailing content');
    map.range = [bm.offset, offset, commentEnd ?? offset];
    return map;
}

exports.resolveBlockMap = resolveBlockMap;


/***/ }),

/***/ 8913:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

function resolveBlockScalar(ctx, scalar, onError) {
    const start = scalar.offset;
    const header = parseBlockScalarHeader(scalar, ctx.options.strict, onError);
    if (!header)
        return { value: '', type: null, comment: '', range: [start, start, start] };
    const type = header.mode === '>' ? Scalar.Scalar.BLOCK_FOLDED : Scalar.Scalar.BLOCK_LITERAL;
    const lines = scalar.source ? splitLines(scalar.source) : [];
    // determine the end of content & start of chomping
    let chompStart = lines.length;
    for (let i = lines.length - 1; i >= 0; --i) {
        const content = lines[i][1];
        if (content === '' || content === '\r')
            chompStart = i;
        else
            break;
    }
    // shortcut for empty contents
    if (chompStart === 0) {
        const value = header.chomp === '+' && lines.length > 0
            ? '\n'.repeat(Math.max(1, lines.length - 1))
            : '';
        let end = start + header.length;
        if (scalar.source)
            end += scalar.source.length;
        return { value, type, comment: header.comment, range: [start, end, end] };
    }
    // find the indentation level to trim from start
    let trimIndent = scalar.indent + header.indent;
    let offset = scalar.offset + header.length;
    let contentStart = 0;
    for (let i = 0; i < chompStart; ++i) {
        const [indent, content] = lines[i];
        if (content === '' || content === '\r') {
            if (header.indent === 0 && indent.length > trimIndent)
                trimIndent = indent.length;
        }
        else {
            if (indent.length < trimIndent) {
                const message = 'Block scalars with more-indented leading empty lines must use an explicit indentation indicator';
                onError(offset + indent.length, 'MISSING_CHAR', message);
            }
            if (header.indent === 0)
                trimIndent = indent.length;
            contentStart = i;
            if (trimIndent === 0 && !ctx.atRoot) {
                const message = 'Block scalar values in collections must be indented';
                onError(offset, 'BAD_INDENT', message);
            }
            break;
        }
        offset += indent.length + content.length + 1;
    }
    // include trailing more-indented empty lines in content
    for (let i = lines.length - 1; i >= chompStart; --i) {
        if (lines[i][0].length > trimIndent)
            chompStart = i + 1;
    }
    let value = '';
    let sep = '';
    let prevMoreIndented = false;
    // leading whitespace is kept intact
    for (let i = 0; i < contentStart; ++i)
        value += lines[i][0].slice(trimIndent) + '\n';
    for (let i = contentStart; i < chompStart; ++i) {
        let [indent, content] = lines[i];
        offset += indent.length + content.length + 1;
        const crlf = content[content.length - 1] === '\r';
        if (crlf)
            content = content.slice(0, -1);
        /* istanbul ignore if already caught in lexer */
        if (content && indent.length < trimIndent) {
            const src = header.indent
                ? 'explicit indentation indicator'
                : 'first line';
            const message = `Block scalar lines must not be less indented than their ${src}`;
            onError(offset - content.length - (crlf ? 2 : 1), 'BAD_INDENT', message);
            indent = '';
        }
        if (type === Scalar.Scalar.BLOCK_LITERAL) {
            value += sep + indent.slice(trimIndent) + content;
            sep = '\n';
        }
        else if (indent.length > trimIndent || content[0] === '\t') {
            // more-indented content within a folded block
            if (sep === ' ')
                sep = '\n';
            else if (!prevMoreIndented && sep === '\n')
                sep = '\n\n';
            value += sep + indent.slice(trimIndent) + content;
            sep = '\n';
            prevMoreIndented = true;
        }
        else if (content === '') {
            // empty line
            if (sep === '\n')
                value += '\n';
            else
                sep = '\n';
        }
        else {
            value += sep + content;
            sep = ' ';
            prevMoreIndented = false;
        }
    }
    switch (header.chomp) {
        case '-':
            break;
        case '+':
            for (let i = chompStart; i < lines.length; ++i)
                value += '\n' + lines[i][0].slice(trimIndent);
            if (value[value.length - 1] !== '\n')
                value += '\n';
            break;
        default:
            value += '\n';
    }
    const end = start + header.length + scalar.source.length;
    return { value, type, comment: header.comment, range: [start, end, end] };
}
function parseBlockScalarHeader({ offset, props }, strict, onError) {
    /* istanbul ignore if should not happen */
    if (props[0].type !== 'block-scalar-header') {
        onError(props[0], 'IMPOSSIBLE', 'Block scalar header not found');
        return null;
    }
    const { source } = props[0];
    const mode = source[0];
    let indent = 0;
    let chomp = '';
    let error = -1;
    for (let i = 1; i < source.length; ++i) {
        const ch = source[i];
        if (!chomp && (ch === '-' || ch === '+'))
            chomp = ch;
        else {
            const n = Number(ch);
            if (!indent && n)
                indent = n;
            else if (error === -1)
                error = offset + i;
        }
    }
    if (error !== -1)
        onError(error, 'UNEXPECTED_TOKEN', `Block scalar header includes extra characters: ${source}`);
    let hasSpace = false;
    let comment = '';
    let length = source.length;
    for (let i = 1; i < props.length; ++i) {
        const token = props[i];
        switch (token.type) {
            case 'space':
                hasSpace = true;
            // fallthrough
            case 'newline':
                length += token.source.length;
                break;
            case 'comment':
                if (strict && !hasSpace) {
                    const message = 'Comments must be separated from other tokens by white space characters';
                    onError(token, 'MISSING_CHAR', message);
                }
                length += token.source.length;
                comment = token.source.substring(1);
                break;
            case 'error':
                onError(token, 'UNEXPECTED_TOKEN', token.message);
                length += token.source.length;
                break;
            /* istanbul ignore next should not happen */
            default: {
                const message = `Unexpected token in block scalar header: ${token.type}`;
                onError(token, 'UNEXPECTED_TOKEN', message);
                const ts = token.source;
                if (ts && typeof ts === 'string')
                    length += ts.length;
            }
        }
    }
    return { mode, indent, chomp, comment, length };
}
/** @returns Array of lines split up as `[indent, content]` */
function splitLines(source) {
    const split = source.split(/\n( *)/);
    const first = split[0];
    const m = first.match(/^( *)/);
    const line0 = m?.[1]
        ? [m[1], first.slice(m[1].length)]
        : ['', first];
    const lines = [line0];
    for (let i = 1; i < split.length; i += 2)
        lines.push([split[i], split[i + 1]]);
    return lines;
}

exports.resolveBlockScalar = resolveBlockScalar;


/***/ }),

/***/ 334:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var YAMLSeq = __nccwpck_require__(2223);
var resolveProps = __nccwpck_require__(4631);
var utilFlowIndentCheck = __nccwpck_require__(4051);

function resolveBlockSeq({ composeNode, composeEmptyNode }, ctx, bs, onError, tag) {
    const NodeClass = tag?.nodeClass ?? YAMLSeq.YAMLSeq;
    const seq = new NodeClass(ctx.schema);
    if (ctx.atRoot)
        ctx.atRoot = false;
    if (ctx.atKey)
        ctx.atKey = false;
    let offset = bs.offset;
    let commentEnd = null;
    for (const { start, value } of bs.items) {
        const props = resolveProps.resolveProps(start, {
            indicator: 'seq-item-ind',
            next: value,
            offset,
            onError,
            parentIndent: bs.indent,
            startOnNewline: true
        });
        if (!props.found) {
            if (props.anchor || props.tag || value) {
                if (value?.type === 'block-seq')
                    onError(props.end, 'BAD_INDENT', 'All sequence items must start at the same column');
                else
                    onError(offset, 'MISSING_CHAR', 'Sequence item without - indicator');
            }
            else {
                commentEnd = props.end;
                if (props.comment)
                    seq.comment = props.comment;
                continue;
            }
        }
        const node = value
            ? composeNode(ctx, value, props, onError)
            : composeEmptyNode(ctx, props.end, start, null, props, onError);
        if (ctx.schema.compat)
            utilFlowIndentCheck.flowIndentCheck(bs.indent, value, onError);
        offset = node.range[2];
        seq.items.push(node);
    }
    seq.range = [bs.offset, offset, commentEnd ?? offset];
    return seq;
}

exports.resolveBlockSeq = resolveBlockSeq;


/***/ }),

/***/ 7788:
/***/ ((__unused_webpack_module, exports) => {



function resolveEnd(end, offset, reqSpace, onError) {
    let comment = '';
    if (end) {
        let hasSpace = false;
        let sep = '';
        for (const token of end) {
            const { source, type } = token;
            switch (type) {
                case 'space':
                    hasSpace = true;
                    break;
                case 'comment': {
                    if (reqSpace && !hasSpace)
                        onError(token, 'MISSING_CHAR', 'Comments must be separated from other tokens by white space characters');
                    const cb = source.substring(1) || ' ';
                    if (!comment)
                        comment = cb;
                    else
                        comment += sep + cb;
                    sep = '';
                    break;
                }
                case 'newline':
                    if (comment)
                        sep += source;
                    hasSpace = true;
                    break;
                default:
                    onError(token, 'UNEXPECTED_TOKEN', `Unexpected ${type} at node end`);
            }
            offset += source.length;
        }
    }
    return { comment, offset };
}

exports.resolveEnd = resolveEnd;


/***/ }),

/***/ 3142:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var resolveEnd = __nccwpck_require__(7788);
var resolveProps = __nccwpck_require__(4631);
var utilContainsNewline = __nccwpck_require__(9499);
var utilMapIncludes = __nccwpck_require__(1187);

const blockMsg = 'Block collections are not allowed within flow collections';
const isBlock = (token) => token && (token.type === 'block-map' || token.type === 'block-seq');
function resolveFlowCollection({ composeNode, composeEmptyNode }, ctx, fc, onError, tag) {
    const isMap = fc.start.source === '{';
    const fcName = isMap ? 'flow map' : 'flow sequence';
    const NodeClass = (tag?.nodeClass ?? (isMap ? YAMLMap.YAMLMap : YAMLSeq.YAMLSeq));
    const coll = new NodeClass(ctx.schema);
    coll.flow = true;
    const atRoot = ctx.atRoot;
    if (atRoot)
        ctx.atRoot = false;
    if (ctx.atKey)
        ctx.atKey = false;
    let offset = fc.offset + fc.start.source.length;
    for (let i = 0; i < fc.items.length; ++i) {
        const collItem = fc.items[i];
        const { start, key, sep, value } = collItem;
        const props = resolveProps.resolveProps(start, {
            flow: fcName,
            indicator: 'explicit-key-ind',
            next: key ?? sep?.[0],
            offset,
            onError,
            parentIndent: fc.indent,
            startOnNewline: false
        });
        if (!props.found) {
            if (!props.anchor && !props.tag && !sep && !value) {
                if (i === 0 && props.comma)
                    onError(props.comma, 'UNEXPECTED_TOKEN', `Unexpected , in ${fcName}`);
                else if (i < fc.items.length - 1)
                    onError(props.start, 'UNEXPECTED_TOKEN', `Unexpected empty item in ${fcName}`);
                if (props.comment) {
                    if (coll.comment)
                        coll.comment += '\n' + props.comment;
                    else
                        coll.comment = props.comment;
                }
                offset = props.end;
                continue;
            }
            if (!isMap && ctx.options.strict && utilContainsNewline.containsNewline(key))
                onError(key, // checked by containsNewline()
                'MULTILINE_IMPLICIT_KEY', 'Implicit keys of flow sequence pairs need to be on a single line');
        }
        if (i === 0) {
            if (props.comma)
                onError(props.comma, 'UNEXPECTED_TOKEN', `Unexpected , in ${fcName}`);
        }
        else {
            if (!props.comma)
                onError(props.start, 'MISSING_CHAR', `Missing , between ${fcName} items`);
            if (props.comment) {
                let prevItemComment = '';
                loop: for (const st of start) {
                    switch (st.type) {
                        case 'comma':
                        case 'space':
                            break;
                        case 'comment':
                            prevItemComment = st.source.substring(1);
                            break loop;
                        default:
                            break loop;
                    }
                }
                if (prevItemComment) {
                    let prev = coll.items[coll.items.length - 1];
                    if (identity.isPair(prev))
                        prev = prev.value ?? prev.key;
                    if (prev.comment)
                        prev.comment += '\n' + prevItemComment;
                    else
                        prev.comment = prevItemComment;
                    props.comment = props.comment.substring(prevItemComment.length + 1);
                }
            }
        }
        if (!isMap && !sep && !props.found) {
            // item is a value in a seq
            // → key & sep are empty, start does not include ? or :
            const valueNode = value
                ? composeNode(ctx, value, props, onError)
                : composeEmptyNode(ctx, props.end, sep, null, props, onError);
            coll.items.push(valueNode);
            offset = valueNode.range[2];
            if (isBlock(value))
                onError(valueNode.range, 'BLOCK_IN_FLOW', blockMsg);
        }
        else {
            // item is a key+value pair
            // key value
            ctx.atKey = true;
            const keyStart = props.end;
            const keyNode = key
                ? composeNode(ctx, key, props, onError)
                : composeEmptyNode(ctx, keyStart, start, null, props, onError);
            if (isBlock(key))
                onError(keyNode.range, 'BLOCK_IN_FLOW', blockMsg);
            ctx.atKey = false;
            // value properties
            const valueProps = resolveProps.resolveProps(sep ?? [], {
                flow: fcName,
                indicator: 'map-value-ind',
                next: value,
                offset: keyNode.range[2],
                onError,
                parentIndent: fc.indent,
                startOnNewline: false
            });
            if (valueProps.found) {
                if (!isMap && !props.found && ctx.options.strict) {
                    if (sep)
                        for (const st of sep) {
                            if (st === valueProps.found)
                                break;
                            if (st.type === 'newline') {
                                onError(st, 'MULTILINE_IMPLICIT_KEY', 'Implicit keys of flow sequence pairs need to be on a single line');
                                break;
                            }
                        }
                    if (props.start < valueProps.found.offset - 1024)
                        onError(valueProps.found, 'KEY_OVER_1024_CHARS', 'The : indicator must be at most 1024 chars after the start of an implicit flow sequence key');
                }
            }
            else if (value) {
                if ('source' in value && value.source?.[0] === ':')
                    onError(value, 'MISSING_CHAR', `Missing space after : in ${fcName}`);
                else
                    onError(valueProps.start, 'MISSING_CHAR', `Missing , or : between ${fcName} items`);
            }
            // value value
            const valueNode = value
                ? composeNode(ctx, value, valueProps, onError)
                : valueProps.found
                    ? composeEmptyNode(ctx, valueProps.end, sep, null, valueProps, onError)
                    : null;
            if (valueNode) {
                if (isBlock(value))
                    onError(valueNode.range, 'BLOCK_IN_FLOW', blockMsg);
            }
            else if (valueProps.comment) {
                if (keyNode.comment)
                    keyNode.comment += '\n' + valueProps.comment;
                else
                    keyNode.comment = valueProps.comment;
            }
            const pair = new Pair.Pair(keyNode, valueNode);
            if (ctx.options.keepSourceTokens)
                pair.srcToken = collItem;
            if (isMap) {
                const map = coll;
                if (utilMapIncludes.mapIncludes(ctx, map.items, keyNode))
                    onError(keyStart, 'DUPLICATE_KEY', 'Map keys must be unique');
                map.items.push(pair);
            }
            else {
                const map = new YAMLMap.YAMLMap(ctx.schema);
                map.flow = true;
                map.items.push(pair);
                const endRange = (valueNode ?? keyNode).range;
                map.range = [keyNode.range[0], endRange[1], endRange[2]];
                coll.items.push(map);
            }
            offset = valueNode ? valueNode.range[2] : valueProps.end;
        }
    }
    const expectedEnd = isMap ? '}' : ']';
    const [ce, ...ee] = fc.end;
    let cePos = offset;
    if (ce?.source === expectedEnd)
        cePos = ce.offset + ce.source.length;
    else {
        const name = fcName[0].toUpperCase() + fcName.substring(1);
        const msg = atRoot
            ? `${name} must end with a ${expectedEnd}`
            : `${name} in block collection must be sufficiently indented and end with a ${expectedEnd}`;
        onError(offset, atRoot ? 'MISSING_CHAR' : 'BAD_INDENT', msg);
        if (ce && ce.source.length !== 1)
            ee.unshift(ce);
    }
    if (ee.length > 0) {
        const end = resolveEnd.resolveEnd(ee, cePos, ctx.options.strict, onError);
        if (end.comment) {
            if (coll.comment)
                coll.comment += '\n' + end.comment;
            else
                coll.comment = end.comment;
        }
        coll.range = [fc.offset, cePos, end.offset];
    }
    else {
        coll.range = [fc.offset, cePos, cePos];
    }
    return coll;
}

exports.resolveFlowCollection = resolveFlowCollection;


/***/ }),

/***/ 6842:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var resolveEnd = __nccwpck_require__(7788);

function resolveFlowScalar(scalar, strict, onError) {
    const { offset, type, source, end } = scalar;
    let _type;
    let value;
    const _onError = (rel, code, msg) => onError(offset + rel, code, msg);
    switch (type) {
        case 'scalar':
            _type = Scalar.Scalar.PLAIN;
            value = plainValue(source, _onError);
            break;
        case 'single-quoted-scalar':
            _type = Scalar.Scalar.QUOTE_SINGLE;
            value = singleQuotedValue(source, _onError);
            break;
        case 'double-quoted-scalar':
            _type = Scalar.Scalar.QUOTE_DOUBLE;
            value = doubleQuotedValue(source, _onError);
            break;
        /* istanbul ignore next should not happen */
        default:
            onError(scalar, 'UNEXPECTED_TOKEN', `Expected a flow scalar value, but found: ${type}`);
            return {
                value: '',
                type: null,
                comment: '',
                range: [offset, offset + source.length, offset + source.length]
            };
    }
    const valueEnd = offset + source.length;
    const re = resolveEnd.resolveEnd(end, valueEnd, strict, onError);
    return {
        value,
        type: _type,
        comment: re.comment,
        range: [offset, valueEnd, re.offset]
    };
}
function plainValue(source, onError) {
    let badChar = '';
    switch (source[0]) {
        /* istanbul ignore next should not happen */
        case '\t':
            badChar = 'a tab character';
            break;
        case ',':
            badChar = 'flow indicator character ,';
            break;
        case '%':
            badChar = 'directive indicator character %';
            break;
        case '|':
        case '>': {
            badChar = `block scalar indicator ${source[0]}`;
            break;
        }
        case '@':
        case '`': {
            badChar = `reserved character ${source[0]}`;
            break;
        }
    }
    if (badChar)
        onError(0, 'BAD_SCALAR_START', `Plain value cannot start with ${badChar}`);
    return unfoldLines(source);
}
function singleQuotedValue(source, onError) {
    if (source[source.length - 1] !== "'" || source.length === 1)
        onError(source.length, 'MISSING_CHAR', "Missing closing 'quote");
    return unfoldLines(source.slice(1, -1)).replace(/''/g, "'");
}
function unfoldLines(source) {
    const line = /(.*?)\r?\n/sy;
    let match = line.exec(source);
    if (!match)
        return source;
    /**
     * The negative lookbehinds in these RegExps are to
     * prevent causing a polynomial search time in certain cases.
     *
     * The try-catch is for Safari < 16.4 and other old browsers:
     * https://caniuse.com/js-regexp-lookbehind
     */
    let trimEnd, trimBoth;
    try {
        trimEnd = new RegExp('(?<![ \t])[ \t]+$');
        trimBoth = new RegExp('^[ \t]+|(?<![ \t])[ \t]+$', 'g');
    }
    catch {
        trimEnd = /[ \t]+$/;
        trimBoth = /^[ \t]+|[ \t]+$/g;
    }
    let res = match[1].replace(trimEnd, '');
    let sep = ' ';
    let pos = line.lastIndex;
    while ((match = line.exec(source))) {
        const lm = match[1].replace(trimBoth, '');
        if (lm === '') {
            if (sep === '\n')
                res += sep;
            else
                sep = '\n';
        }
        else {
            res += sep + lm;
            sep = ' ';
        }
        pos = line.lastIndex;
    }
    const last = /[ \t]*(.*)/sy;
    last.lastIndex = pos;
    match = last.exec(source);
    return res + sep + (match?.[1] ?? '');
}
function doubleQuotedValue(source, onError) {
    let res = '';
    for (let i = 1; i < source.length - 1; ++i) {
        const ch = source[i];
        if (ch === '\r' && source[i + 1] === '\n')
            continue;
        if (ch === '\n') {
            const { fold, offset } = foldNewline(source, i);
            res += fold;
            i = offset;
        }
        else if (ch === '\\') {
            let next = source[++i];
            const cc = escapeCodes[next];
            if (cc)
                res += cc;
            else if (next === '\n') {
                // skip escaped newlines, but still trim the following line
                next = source[i + 1];
                while (next === ' ' || next === '\t')
                    next = source[++i + 1];
            }
            else if (next === '\r' && source[i + 1] === '\n') {
                // skip escaped CRLF newlines, but still trim the following line
                next = source[++i + 1];
                while (next === ' ' || next === '\t')
                    next = source[++i + 1];
            }
            else if (next === 'x' || next === 'u' || next === 'U') {
                const length = next === 'x' ? 2 : next === 'u' ? 4 : 8;
                res += parseCharCode(source, i + 1, length, onError);
                i += length;
            }
            else {
                const raw = source.substr(i - 1, 2);
                onError(i - 1, 'BAD_DQ_ESCAPE', `Invalid escape sequence ${raw}`);
                res += raw;
            }
        }
        else if (ch === ' ' || ch === '\t') {
            // trim trailing whitespace
            const wsStart = i;
            let next = source[i + 1];
            while (next === ' ' || next === '\t')
                next = source[++i + 1];
            if (next !== '\n' && !(next === '\r' && source[i + 2] === '\n'))
                res += i > wsStart ? source.slice(wsStart, i + 1) : ch;
        }
        else {
            res += ch;
        }
    }
    if (source[source.length - 1] !== '"' || source.length === 1)
        onError(source.length, 'MISSING_CHAR', 'Missing closing "quote');
    return res;
}
/**
 * Fold a single newline into a space, multiple newlines to N - 1 newlines.
 * Presumes `source[offset] === '\n'`
 */
function foldNewline(source, offset) {
    let fold = '';
    let ch = source[offset + 1];
    while (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
        if (ch === '\r' && source[offset + 2] !== '\n')
            break;
        if (ch === '\n')
            fold += '\n';
        offset += 1;
        ch = source[offset + 1];
    }
    if (!fold)
        fold = ' ';
    return { fold, offset };
}
const escapeCodes = {
    '0': '\0', // null character
    a: '\x07', // bell character
    b: '\b', // backspace
    e: '\x1b', // escape character
    f: '\f', // form feed
    n: '\n', // line feed
    r: '\r', // carriage return
    t: '\t', // horizontal tab
    v: '\v', // vertical tab
    N: '\u0085', // Unicode next line
    _: '\u00a0', // Unicode non-breaking space
    L: '\u2028', // Unicode line separator
    P: '\u2029', // Unicode paragraph separator
    ' ': ' ',
    '"': '"',
    '/': '/',
    '\\': '\\',
    '\t': '\t'
};
function parseCharCode(source, offset, length, onError) {
    const cc = source.substr(offset, length);
    const ok = cc.length === length && /^[0-9a-fA-F]+$/.test(cc);
    const code = ok ? parseInt(cc, 16) : NaN;
    try {
        return String.fromCodePoint(code);
    }
    catch {
        const raw = source.substr(offset - 2, length + 2);
        onError(offset - 2, 'BAD_DQ_ESCAPE', `Invalid escape sequence ${raw}`);
        return raw;
    }
}

exports.resolveFlowScalar = resolveFlowScalar;


/***/ }),

/***/ 4631:
/***/ ((__unused_webpack_module, exports) => {



function resolveProps(tokens, { flow, indicator, next, offset, onError, parentIndent, startOnNewline }) {
    let spaceBefore = false;
    let atNewline = startOnNewline;
    let hasSpace = startOnNewline;
    let comment = '';
    let commentSep = '';
    let hasNewline = false;
    let reqSpace = false;
    let tab = null;
    let anchor = null;
    let tag = null;
    let newlineAfterProp = null;
    let comma = null;
    let found = null;
    let start = null;
    for (const token of tokens) {
        if (reqSpace) {
            if (token.type !== 'space' &&
                token.type !== 'newline' &&
                token.type !== 'comma')
                onError(token.offset, 'MISSING_CHAR', 'Tags and anchors must be separated from the next token by white space');
            reqSpace = false;
        }
        if (tab) {
            if (atNewline && token.type !== 'comment' && token.type !== 'newline') {
                onError(tab, 'TAB_AS_INDENT', 'Tabs are not allowed as indentation');
            }
            tab = null;
        }
        switch (token.type) {
            case 'space':
                // At the doc level, tabs at line start may be parsed
                // as leading white space rather than indentation.
                // In a flow collection, only the parser handles indent.
                if (!flow &&
                    (indicator !== 'doc-start' || next?.type !== 'flow-collection') &&
                    token.source.includes('\t')) {
                    tab = token;
                }
                hasSpace = true;
                break;
            case 'comment': {
                if (!hasSpace)
                    onError(token, 'MISSING_CHAR', 'Comments must be separated from other tokens by white space characters');
                const cb = token.source.substring(1) || ' ';
                if (!comment)
                    comment = cb;
                else
                    comment += commentSep + cb;
                commentSep = '';
                atNewline = false;
                break;
            }
            case 'newline':
                if (atNewline) {
                    if (comment)
                        comment += token.source;
                    else if (!found || indicator !== 'seq-item-ind')
                        spaceBefore = true;
                }
                else
                    commentSep += token.source;
                atNewline = true;
                hasNewline = true;
                if (anchor || tag)
                    newlineAfterProp = token;
                hasSpace = true;
                break;
            case 'anchor':
                if (anchor)
                    onError(token, 'MULTIPLE_ANCHORS', 'A node can have at most one anchor');
                if (token.source.endsWith(':'))
                    onError(token.offset + token.source.length - 1, 'BAD_ALIAS', 'Anchor ending in : is ambiguous', true);
                anchor = token;
                start ?? (start = token.offset);
                atNewline = false;
                hasSpace = false;
                reqSpace = true;
                break;
            case 'tag': {
                if (tag)
                    onError(token, 'MULTIPLE_TAGS', 'A node can have at most one tag');
                tag = token;
                start ?? (start = token.offset);
                atNewline = false;
                hasSpace = false;
                reqSpace = true;
                break;
            }
            case indicator:
                // Could here handle preceding comments differently
                if (anchor || tag)
                    onError(token, 'BAD_PROP_ORDER', `Anchors and tags must be after the ${token.source} indicator`);
                if (found)
                    onError(token, 'UNEXPECTED_TOKEN', `Unexpected ${token.source} in ${flow ?? 'collection'}`);
                found = token;
                atNewline =
                    indicator === 'seq-item-ind' || indicator === 'explicit-key-ind';
                hasSpace = false;
                break;
            case 'comma':
                if (flow) {
                    if (comma)
                        onError(token, 'UNEXPECTED_TOKEN', `Unexpected , in ${flow}`);
                    comma = token;
                    atNewline = false;
                    hasSpace = false;
                    break;
                }
            // else fallthrough
            default:
                onError(token, 'UNEXPECTED_TOKEN', `Unexpected ${token.type} token`);
                atNewline = false;
                hasSpace = false;
        }
    }
    const last = tokens[tokens.length - 1];
    const end = last ? last.offset + last.source.length : offset;
    if (reqSpace &&
        next &&
        next.type !== 'space' &&
        next.type !== 'newline' &&
        next.type !== 'comma' &&
        (next.type !== 'scalar' || next.source !== '')) {
        onError(next.offset, 'MISSING_CHAR', 'Tags and anchors must be separated from the next token by white space');
    }
    if (tab &&
        ((atNewline && tab.indent <= parentIndent) ||
            next?.type === 'block-map' ||
            next?.type === 'block-seq'))
        onError(tab, 'TAB_AS_INDENT', 'Tabs are not allowed as indentation');
    return {
        comma,
        found,
        spaceBefore,
        comment,
        hasNewline,
        anchor,
        tag,
        newlineAfterProp,
        end,
        start: start ?? end
    };
}

exports.resolveProps = resolveProps;


/***/ }),

/***/ 9499:
/***/ ((__unused_webpack_module, exports) => {



function containsNewline(key) {
    if (!key)
        return null;
    switch (key.type) {
        case 'alias':
        case 'scalar':
        case 'double-quoted-scalar':
        case 'single-quoted-scalar':
            if (key.source.includes('\n'))
                return true;
            if (key.end)
                for (const st of key.end)
                    if (st.type === 'newline')
                        return true;
            return false;
        case 'flow-collection':
            for (const it of key.items) {
                for (const st of it.start)
                    if (st.type === 'newline')
                        return true;
                if (it.sep)
                    for (const st of it.sep)
                        if (st.type === 'newline')
                            return true;
                if (containsNewline(it.key) || containsNewline(it.value))
                    return true;
            }
            return false;
        default:
            return true;
    }
}

exports.containsNewline = containsNewline;


/***/ }),

/***/ 2599:
/***/ ((__unused_webpack_module, exports) => {



function emptyScalarPosition(offset, before, pos) {
    if (before) {
        pos ?? (pos = before.length);
        for (let i = pos - 1; i >= 0; --i) {
            let st = before[i];
            switch (st.type) {
                case 'space':
                case 'comment':
                case 'newline':
                    offset -= st.source.length;
                    continue;
            }
            // Technically, an empty scalar is immediately after the last non-empty
            // node, but it's more useful to place it after any whitespace.
            st = before[++i];
            while (st?.type === 'space') {
                offset += st.source.length;
                st = before[++i];
            }
            break;
        }
    }
    return offset;
}

exports.emptyScalarPosition = emptyScalarPosition;


/***/ }),

/***/ 4051:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var utilContainsNewline = __nccwpck_require__(9499);

function flowIndentCheck(indent, fc, onError) {
    if (fc?.type === 'flow-collection') {
        const end = fc.end[0];
        if (end.indent === indent &&
            (end.source === ']' || end.source === '}') &&
            utilContainsNewline.containsNewline(fc)) {
            const msg = 'Flow end indicator should be more indented than parent';
            onError(end, 'BAD_INDENT', msg, true);
        }
    }
}

exports.flowIndentCheck = flowIndentCheck;


/***/ }),

/***/ 1187:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);

function mapIncludes(ctx, items, search) {
    const { uniqueKeys } = ctx.options;
    if (uniqueKeys === false)
        return false;
    const isEqual = typeof uniqueKeys === 'function'
        ? uniqueKeys
        : (a, b) => a === b || (identity.isScalar(a) && identity.isScalar(b) && a.value === b.value);
    return items.some(pair => isEqual(pair.key, search));
}

exports.mapIncludes = mapIncludes;


/***/ }),

/***/ 3021:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Alias = __nccwpck_require__(4065);
var Collection = __nccwpck_require__(101);
var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var toJS = __nccwpck_require__(4043);
var Schema = __nccwpck_require__(5840);
var stringifyDocument = __nccwpck_require__(6829);
var anchors = __nccwpck_require__(1596);
var applyReviver = __nccwpck_require__(3661);
var createNode = __nccwpck_require__(2404);
var directives = __nccwpck_require__(1342);

class Document {
    constructor(value, replacer, options) {
        /** A comment before this Document */
        this.commentBefore = null;
        /** A comment immediately after this Document */
        this.comment = null;
        /** Errors encountered during parsing. */
        this.errors = [];
        /** Warnings encountered during parsing. */
        this.warnings = [];
        Object.defineProperty(this, identity.NODE_TYPE, { value: identity.DOC });
        let _replacer = null;
        if (typeof replacer === 'function' || Array.isArray(replacer)) {
            _replacer = replacer;
        }
        else if (options === undefined && replacer) {
            options = replacer;
            replacer = undefined;
        }
        const opt = Object.assign({
            intAsBigInt: false,
            keepSourceTokens: false,
            logLevel: 'warn',
            prettyErrors: true,
            strict: true,
            stringKeys: false,
            uniqueKeys: true,
            version: '1.2'
        }, options);
        this.options = opt;
        let { version } = opt;
        if (options?._directives) {
            this.directives = options._directives.atDocument();
            if (this.directives.yaml.explicit)
                version = this.directives.yaml.version;
        }
        else
            this.directives = new directives.Directives({ version });
        this.setSchema(version, options);
        // @ts-expect-error We can't really know that this matches Contents.
        this.contents =
            value === undefined ? null : this.createNode(value, _replacer, options);
    }
    /**
     * Create a deep copy of this Document and its contents.
     *
     * Custom Node values that inherit from `Object` still refer to their original instances.
     */
    clone() {
        const copy = Object.create(Document.prototype, {
            [identity.NODE_TYPE]: { value: identity.DOC }
        });
        copy.commentBefore = this.commentBefore;
        copy.comment = this.comment;
        copy.errors = this.errors.slice();
        copy.warnings = this.warnings.slice();
        copy.options = Object.assign({}, this.options);
        if (this.directives)
            copy.directives = this.directives.clone();
        copy.schema = this.schema.clone();
        // @ts-expect-error We can't really know that this matches Contents.
        copy.contents = identity.isNode(this.contents)
            ? this.contents.clone(copy.schema)
            : this.contents;
        if (this.range)
            copy.range = this.range.slice();
        return copy;
    }
    /** Adds a value to the document. */
    add(value) {
        if (assertCollection(this.contents))
            this.contents.add(value);
    }
    /** Adds a value to the document. */
    addIn(path, value) {
        if (assertCollection(this.contents))
            this.contents.addIn(path, value);
    }
    /**
     * Create a new `Alias` node, ensuring that the target `node` has the required anchor.
     *
     * If `node` already has an anchor, `name` is ignored.
     * Otherwise, the `node.anchor` value will be set to `name`,
     * or if an anchor with that name is already present in the document,
     * `name` will be used as a prefix for a new unique anchor.
     * If `name` is undefined, the generated anchor will use 'a' as a prefix.
     */
    createAlias(node, name) {
        if (!node.anchor) {
            const prev = anchors.anchorNames(this);
            node.anchor =
                // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing
                !name || prev.has(name) ? anchors.findNewAnchor(name || 'a', prev) : name;
        }
        return new Alias.Alias(node.anchor);
    }
    createNode(value, replacer, options) {
        let _replacer = undefined;
        if (typeof replacer === 'function') {
            value = replacer.call({ '': value }, '', value);
            _replacer = replacer;
        }
        else if (Array.isArray(replacer)) {
            const keyToStr = (v) => typeof v === 'number' || v instanceof String || v instanceof Number;
            const asStr = replacer.filter(keyToStr).map(String);
            if (asStr.length > 0)
                replacer = replacer.concat(asStr);
            _replacer = replacer;
        }
        else if (options === undefined && replacer) {
            options = replacer;
            replacer = undefined;
        }
        const { aliasDuplicateObjects, anchorPrefix, flow, keepUndefined, onTagObj, tag } = options ?? {};
        const { onAnchor, setAnchors, sourceObjects } = anchors.createNodeAnchors(this, 
        // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing
        anchorPrefix || 'a');
        const ctx = {
            aliasDuplicateObjects: aliasDuplicateObjects ?? true,
            keepUndefined: keepUndefined ?? false,
            onAnchor,
            onTagObj,
            replacer: _replacer,
            schema: this.schema,
            sourceObjects
        };
        const node = createNode.createNode(value, tag, ctx);
        if (flow && identity.isCollection(node))
            node.flow = true;
        setAnchors();
        return node;
    }
    /**
     * Convert a key and a value into a `Pair` using the current schema,
     * recursively wrapping all values as `Scalar` or `Collection` nodes.
     */
    createPair(key, value, options = {}) {
        const k = this.createNode(key, null, options);
        const v = this.createNode(value, null, options);
        return new Pair.Pair(k, v);
    }
    /**
     * Removes a value from the document.
     * @returns `true` if the item was found and removed.
     */
    delete(key) {
        return assertCollection(this.contents) ? this.contents.delete(key) : false;
    }
    /**
     * Removes a value from the document.
     * @returns `true` if the item was found and removed.
     */
    deleteIn(path) {
        if (Collection.isEmptyPath(path)) {
            if (this.contents == null)
                return false;
            // @ts-expect-error Presumed impossible if Strict extends false
            this.contents = null;
            return true;
        }
        return assertCollection(this.contents)
            ? this.contents.deleteIn(path)
            : false;
    }
    /**
     * Returns item at `key`, or `undefined` if not found. By default unwraps
     * scalar values from their surrounding node; to disable set `keepScalar` to
     * `true` (collections are always returned intact).
     */
    get(key, keepScalar) {
        return identity.isCollection(this.contents)
            ? this.contents.get(key, keepScalar)
            : undefined;
    }
    /**
     * Returns item at `path`, or `undefined` if not found. By default unwraps
     * scalar values from their surrounding node; to disable set `keepScalar` to
     * `true` (collections are always returned intact).
     */
    getIn(path, keepScalar) {
        if (Collection.isEmptyPath(path))
            return !keepScalar && identity.isScalar(this.contents)
                ? this.contents.value
                : this.contents;
        return identity.isCollection(this.contents)
            ? this.contents.getIn(path, keepScalar)
            : undefined;
    }
    /**
     * Checks if the document includes a value with the key `key`.
     */
    has(key) {
        return identity.isCollection(this.contents) ? this.contents.has(key) : false;
    }
    /**
     * Checks if the document includes a value at `path`.
     */
    hasIn(path) {
        if (Collection.isEmptyPath(path))
            return this.contents !== undefined;
        return identity.isCollection(this.contents) ? this.contents.hasIn(path) : false;
    }
    /**
     * Sets a value in this document. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     */
    set(key, value) {
        if (this.contents == null) {
            // @ts-expect-error We can't really know that this matches Contents.
            this.contents = Collection.collectionFromPath(this.schema, [key], value);
        }
        else if (assertCollection(this.contents)) {
            this.contents.set(key, value);
        }
    }
    /**
     * Sets a value in this document. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     */
    setIn(path, value) {
        if (Collection.isEmptyPath(path)) {
            // @ts-expect-error We can't really know that this matches Contents.
            this.contents = value;
        }
        else if (this.contents == null) {
            // @ts-expect-error We can't really know that this matches Contents.
            this.contents = Collection.collectionFromPath(this.schema, Array.from(path), value);
        }
        else if (assertCollection(this.contents)) {
            this.contents.setIn(path, value);
        }
    }
    /**
     * Change the YAML version and schema used by the document.
     * A `null` version disables support for directives, explicit tags, anchors, and aliases.
     * It also requires the `schema` option to be given as a `Schema` instance value.
     *
     * Overrides all previously set schema options.
     */
    setSchema(version, options = {}) {
        if (typeof version === 'number')
            version = String(version);
        let opt;
        switch (version) {
            case '1.1':
                if (this.directives)
                    this.directives.yaml.version = '1.1';
                else
                    this.directives = new directives.Directives({ version: '1.1' });
                opt = { resolveKnownTags: false, schema: 'yaml-1.1' };
                break;
            case '1.2':
            case 'next':
                if (this.directives)
                    this.directives.yaml.version = version;
                else
                    this.directives = new directives.Directives({ version });
                opt = { resolveKnownTags: true, schema: 'core' };
                break;
            case null:
                if (this.directives)
                    delete this.directives;
                opt = null;
                break;
            default: {
                const sv = JSON.stringify(version);
                throw new Error(`Expected '1.1', '1.2' or null as first argument, but found: ${sv}`);
            }
        }
        // Not using `instanceof Schema` to allow for duck typing
        if (options.schema instanceof Object)
            this.schema = options.schema;
        else if (opt)
            this.schema = new Schema.Schema(Object.assign(opt, options));
        else
            throw new Error(`With a null YAML version, the { schema: Schema } option is required`);
    }
    // json & jsonArg are only used from toJSON()
    toJS({ json, jsonArg, mapAsMap, maxAliasCount, onAnchor, reviver } = {}) {
        const ctx = {
            anchors: new Map(),
            doc: this,
            keep: !json,
            mapAsMap: mapAsMap === true,
            mapKeyWarned: false,
            maxAliasCount: typeof maxAliasCount === 'number' ? maxAliasCount : 100
        };
        const res = toJS.toJS(this.contents, jsonArg ?? '', ctx);
        if (typeof onAnchor === 'function')
            for (const { count, res } of ctx.anchors.values())
                onAnchor(res, count);
        return typeof reviver === 'function'
            ? applyReviver.applyReviver(reviver, { '': res }, '', res)
            : res;
    }
    /**
     * A JSON representation of the document `contents`.
     *
     * @param jsonArg Used by `JSON.stringify` to indicate the array index or
     *   property name.
     */
    toJSON(jsonArg, onAnchor) {
        return this.toJS({ json: true, jsonArg, mapAsMap: false, onAnchor });
    }
    /** A YAML representation of the document. */
    toString(options = {}) {
        if (this.errors.length > 0)
            throw new Error('Document with errors cannot be stringified');
        if ('indent' in options &&
            (!Number.isInteger(options.indent) || Number(options.indent) <= 0)) {
            const s = JSON.stringify(options.indent);
            throw new Error(`"indent" option must be a positive integer, not ${s}`);
        }
        return stringifyDocument.stringifyDocument(this, options);
    }
}
function assertCollection(contents) {
    if (identity.isCollection(contents))
        return true;
    throw new Error('Expected a YAML collection as document contents');
}

exports.Document = Document;


/***/ }),

/***/ 1596:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var visit = __nccwpck_require__(204);

/**
 * Verify that the input string is a valid anchor.
 *
 * Will throw on errors.
 */
function anchorIsValid(anchor) {
    if (/[\x00-\x19\s,[\]{}]/.test(anchor)) {
        const sa = JSON.stringify(anchor);
        const msg = `Anchor must not contain whitespace or control characters: ${sa}`;
        throw new Error(msg);
    }
    return true;
}
function anchorNames(root) {
    const anchors = new Set();
    visit.visit(root, {
        Value(_key, node) {
            if (node.anchor)
                anchors.add(node.anchor);
        }
    });
    return anchors;
}
/** Find a new anchor name with the given `prefix` and a one-indexed suffix. */
function findNewAnchor(prefix, exclude) {
    for (let i = 1; true; ++i) {
        const name = `${prefix}${i}`;
        if (!exclude.has(name))
            return name;
    }
}
function createNodeAnchors(doc, prefix) {
    const aliasObjects = [];
    const sourceObjects = new Map();
    let prevAnchors = null;
    return {
        onAnchor: (source) => {
            aliasObjects.push(source);
            prevAnchors ?? (prevAnchors = anchorNames(doc));
            const anchor = findNewAnchor(prefix, prevAnchors);
            prevAnchors.add(anchor);
            return anchor;
        },
        /**
         * With circular references, the source node is only resolved after all
         * of its child nodes are. This is why anchors are set only after all of
         * the nodes have been created.
         */
        setAnchors: () => {
            for (const source of aliasObjects) {
                const ref = sourceObjects.get(source);
                if (typeof ref === 'object' &&
                    ref.anchor &&
                    (identity.isScalar(ref.node) || identity.isCollection(ref.node))) {
                    ref.node.anchor = ref.anchor;
                }
                else {
                    const error = new Error('Failed to resolve repeated object (this should not happen)');
                    error.source = source;
                    throw error;
                }
            }
        },
        sourceObjects
    };
}

exports.anchorIsValid = anchorIsValid;
exports.anchorNames = anchorNames;
exports.createNodeAnchors = createNodeAnchors;
exports.findNewAnchor = findNewAnchor;


/***/ }),

/***/ 3661:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Applies the JSON.parse reviver algorithm as defined in the ECMA-262 spec,
 * in section 24.5.1.1 "Runtime Semantics: InternalizeJSONProperty" of the
 * 2021 edition: https://tc39.es/ecma262/#sec-json.parse
 *
 * Includes extensions for handling Map and Set objects.
 */
function applyReviver(reviver, obj, key, val) {
    if (val && typeof val === 'object') {
        if (Array.isArray(val)) {
            for (let i = 0, len = val.length; i < len; ++i) {
                const v0 = val[i];
                const v1 = applyReviver(reviver, val, String(i), v0);
                // eslint-disable-next-line @typescript-eslint/no-array-delete
                if (v1 === undefined)
                    delete val[i];
                else if (v1 !== v0)
                    val[i] = v1;
            }
        }
        else if (val instanceof Map) {
            for (const k of Array.from(val.keys())) {
                const v0 = val.get(k);
                const v1 = applyReviver(reviver, val, k, v0);
                if (v1 === undefined)
                    val.delete(k);
                else if (v1 !== v0)
                    val.set(k, v1);
            }
        }
        else if (val instanceof Set) {
            for (const v0 of Array.from(val)) {
                const v1 = applyReviver(reviver, val, v0, v0);
                if (v1 === undefined)
                    val.delete(v0);
                else if (v1 !== v0) {
                    val.delete(v0);
                    val.add(v1);
                }
            }
        }
        else {
            for (const [k, v0] of Object.entries(val)) {
                const v1 = applyReviver(reviver, val, k, v0);
                if (v1 === undefined)
                    delete val[k];
                else if (v1 !== v0)
                    val[k] = v1;
            }
        }
    }
    return reviver.call(obj, key, val);
}

exports.applyReviver = applyReviver;


/***/ }),

/***/ 2404:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Alias = __nccwpck_require__(4065);
var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);

const defaultTagPrefix = 'tag:yaml.org,2002:';
function findTagObject(value, tagName, tags) {
    if (tagName) {
        const match = tags.filter(t => t.tag === tagName);
        const tagObj = match.find(t => !t.format) ?? match[0];
        if (!tagObj)
            throw new Error(`Tag ${tagName} not found`);
        return tagObj;
    }
    return tags.find(t => t.identify?.(value) && !t.format);
}
function createNode(value, tagName, ctx) {
    if (identity.isDocument(value))
        value = value.contents;
    if (identity.isNode(value))
        return value;
    if (identity.isPair(value)) {
        const map = ctx.schema[identity.MAP].createNode?.(ctx.schema, null, ctx);
        map.items.push(value);
        return map;
    }
    if (value instanceof String ||
        value instanceof Number ||
        value instanceof Boolean ||
        (typeof BigInt !== 'undefined' && value instanceof BigInt) // not supported everywhere
    ) {
        // https://tc39.es/ecma262/#sec-serializejsonproperty
        value = value.valueOf();
    }
    const { aliasDuplicateObjects, onAnchor, onTagObj, schema, sourceObjects } = ctx;
    // Detect duplicate references to the same object & use Alias nodes for all
    // after first. The `ref` wrapper allows for circular references to resolve.
    let ref = undefined;
    if (aliasDuplicateObjects && value && typeof value === 'object') {
        ref = sourceObjects.get(value);
        if (ref) {
            ref.anchor ?? (ref.anchor = onAnchor(value));
            return new Alias.Alias(ref.anchor);
        }
        else {
            ref = { anchor: null, node: null };
            sourceObjects.set(value, ref);
        }
    }
    if (tagName?.startsWith('!!'))
        tagName = defaultTagPrefix + tagName.slice(2);
    let tagObj = findTagObject(value, tagName, schema.tags);
    if (!tagObj) {
        if (value && typeof value.toJSON === 'function') {
            // eslint-disable-next-line @typescript-eslint/no-unsafe-call
            value = value.toJSON();
        }
        if (!value || typeof value !== 'object') {
            const node = new Scalar.Scalar(value);
            if (ref)
                ref.node = node;
            return node;
        }
        tagObj =
            value instanceof Map
                ? schema[identity.MAP]
                : Symbol.iterator in Object(value)
                    ? schema[identity.SEQ]
                    : schema[identity.MAP];
    }
    if (onTagObj) {
        onTagObj(tagObj);
        delete ctx.onTagObj;
    }
    const node = tagObj?.createNode
        ? tagObj.createNode(ctx.schema, value, ctx)
        : typeof tagObj?.nodeClass?.from === 'function'
            ? tagObj.nodeClass.from(ctx.schema, value, ctx)
            : new Scalar.Scalar(value);
    if (tagName)
        node.tag = tagName;
    else if (!tagObj.default)
        node.tag = tagObj.tag;
    if (ref)
        ref.node = node;
    return node;
}

exports.createNode = createNode;


/***/ }),

/***/ 1342:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var visit = __nccwpck_require__(204);

const escapeChars = {
    '!': '%21',
    ',': '%2C',
    '[': '%5B',
    ']': '%5D',
    '{': '%7B',
    '}': '%7D'
};
const escapeTagName = (tn) => tn.replace(/[!,[\]{}]/g, ch => escapeChars[ch]);
class Directives {
    constructor(yaml, tags) {
        /**
         * The directives-end/doc-start marker `---`. If `null`, a marker may still be
         * included in the document's stringified representation.
         */
        this.docStart = null;
        /** The doc-end marker `...`.  */
        this.docEnd = false;
        this.yaml = Object.assign({}, Directives.defaultYaml, yaml);
        this.tags = Object.assign({}, Directives.defaultTags, tags);
    }
    clone() {
        const copy = new Directives(this.yaml, this.tags);
        copy.docStart = this.docStart;
        return copy;
    }
    /**
     * During parsing, get a Directives instance for the current document and
     * update the stream state according to the current version's spec.
     */
    atDocument() {
        const res = new Directives(this.yaml, this.tags);
        switch (this.yaml.version) {
            case '1.1':
                this.atNextDocument = true;
                break;
            case '1.2':
                this.atNextDocument = false;
                this.yaml = {
                    explicit: Directives.defaultYaml.explicit,
                    version: '1.2'
                };
                this.tags = Object.assign({}, Directives.defaultTags);
                break;
        }
        return res;
    }
    /**
     * @param onError - May be called even if the action was successful
     * @returns `true` on success
     */
    add(line, onError) {
        if (this.atNextDocument) {
            this.yaml = { explicit: Directives.defaultYaml.explicit, version: '1.1' };
            this.tags = Object.assign({}, Directives.defaultTags);
            this.atNextDocument = false;
        }
        const parts = line.trim().split(/[ \t]+/);
        const name = parts.shift();
        switch (name) {
            case '%TAG': {
                if (parts.length !== 2) {
                    onError(0, '%TAG directive should contain exactly two parts');
                    if (parts.length < 2)
                        return false;
                }
                const [handle, prefix] = parts;
                this.tags[handle] = prefix;
                return true;
            }
            case '%YAML': {
                this.yaml.explicit = true;
                if (parts.length !== 1) {
                    onError(0, '%YAML directive should contain exactly one part');
                    return false;
                }
                const [version] = parts;
                if (version === '1.1' || version === '1.2') {
                    this.yaml.version = version;
                    return true;
                }
                else {
                    const isValid = /^\d+\.\d+$/.test(version);
                    onError(6, `Unsupported YAML version ${version}`, isValid);
                    return false;
                }
            }
            default:
                onError(0, `Unknown directive ${name}`, true);
                return false;
        }
    }
    /**
     * Resolves a tag, matching handles to those defined in %TAG directives.
     *
     * @returns Resolved tag, which may also be the non-specific tag `'!'` or a
     *   `'!local'` tag, or `null` if unresolvable.
     */
    tagName(source, onError) {
        if (source === '!')
            return '!'; // non-specific tag
        if (source[0] !== '!') {
            onError(`Not a valid tag: ${source}`);
            return null;
        }
        if (source[1] === '<') {
            const verbatim = source.slice(2, -1);
            if (verbatim === '!' || verbatim === '!!') {
                onError(`Verbatim tags aren't resolved, so ${source} is invalid.`);
                return null;
            }
            if (source[source.length - 1] !== '>')
                onError('Verbatim tags must end with a >');
            return verbatim;
        }
        const [, handle, suffix] = source.match(/^(.*!)([^!]*)$/s);
        if (!suffix)
            onError(`The ${source} tag has no suffix`);
        const prefix = this.tags[handle];
        if (prefix) {
            try {
                return prefix + decodeURIComponent(suffix);
            }
            catch (error) {
                onError(String(error));
                return null;
            }
        }
        if (handle === '!')
            return source; // local tag
        onError(`Could not resolve tag: ${source}`);
        return null;
    }
    /**
     * Given a fully resolved tag, returns its printable string form,
     * taking into account current tag prefixes and defaults.
     */
    tagString(tag) {
        for (const [handle, prefix] of Object.entries(this.tags)) {
            if (tag.startsWith(prefix))
                return handle + escapeTagName(tag.substring(prefix.length));
        }
        return tag[0] === '!' ? tag : `!<${tag}>`;
    }
    toString(doc) {
        const lines = this.yaml.explicit
            ? [`%YAML ${this.yaml.version || '1.2'}`]
            : [];
        const tagEntries = Object.entries(this.tags);
        let tagNames;
        if (doc && tagEntries.length > 0 && identity.isNode(doc.contents)) {
            const tags = {};
            visit.visit(doc.contents, (_key, node) => {
                if (identity.isNode(node) && node.tag)
                    tags[node.tag] = true;
            });
            tagNames = Object.keys(tags);
        }
        else
            tagNames = [];
        for (const [handle, prefix] of tagEntries) {
            if (handle === '!!' && prefix === 'tag:yaml.org,2002:')
                continue;
            if (!doc || tagNames.some(tn => tn.startsWith(prefix)))
                lines.push(`%TAG ${handle} ${prefix}`);
        }
        return lines.join('\n');
    }
}
Directives.defaultYaml = { explicit: false, version: '1.2' };
Directives.defaultTags = { '!!': 'tag:yaml.org,2002:' };

exports.Directives = Directives;


/***/ }),

/***/ 1464:
/***/ ((__unused_webpack_module, exports) => {



class YAMLError extends Error {
    constructor(name, pos, code, message) {
        super();
        this.name = name;
        this.code = code;
        this.message = message;
        this.pos = pos;
    }
}
class YAMLParseError extends YAMLError {
    constructor(pos, code, message) {
        super('YAMLParseError', pos, code, message);
    }
}
class YAMLWarning extends YAMLError {
    constructor(pos, code, message) {
        super('YAMLWarning', pos, code, message);
    }
}
const prettifyError = (src, lc) => (error) => {
    if (error.pos[0] === -1)
        return;
    error.linePos = error.pos.map(pos => lc.linePos(pos));
    const { line, col } = error.linePos[0];
    error.message += ` at line ${line}, column ${col}`;
    let ci = col - 1;
    let lineStr = src
        .substring(lc.lineStarts[line - 1], lc.lineStarts[line])
        .replace(/[\n\r]+$/, '');
    // Trim to max 80 chars, keeping col position near the middle
    if (ci >= 60 && lineStr.length > 80) {
        const trimStart = Math.min(ci - 39, lineStr.length - 79);
        lineStr = '…' + lineStr.substring(trimStart);
        ci -= trimStart - 1;
    }
    if (lineStr.length > 80)
        lineStr = lineStr.substring(0, 79) + '…';
    // Include previous line in context if pointing at line start
    if (line > 1 && /^ *$/.test(lineStr.substring(0, ci))) {
        // Regexp won't match if start is trimmed
        let prev = src.substring(lc.lineStarts[line - 2], lc.lineStarts[line - 1]);
        if (prev.length > 80)
            prev = prev.substring(0, 79) + '…\n';
        lineStr = prev + lineStr;
    }
    if (/[^ ]/.test(lineStr)) {
        let count = 1;
        const end = error.linePos[1];
        if (end?.line === line && end.col > col) {
            count = Math.max(1, Math.min(end.col - col, 80 - ci));
        }
        const pointer = ' '.repeat(ci) + '^'.repeat(count);
        error.message += `:\n\n${lineStr}\n${pointer}\n`;
    }
};

exports.YAMLError = YAMLError;
exports.YAMLParseError = YAMLParseError;
exports.YAMLWarning = YAMLWarning;
exports.prettifyError = prettifyError;


/***/ }),

/***/ 8815:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {

var __webpack_unused_export__;


var composer = __nccwpck_require__(9984);
var Document = __nccwpck_require__(3021);
var Schema = __nccwpck_require__(5840);
var errors = __nccwpck_require__(1464);
var Alias = __nccwpck_require__(4065);
var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var Scalar = __nccwpck_require__(3301);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var cst = __nccwpck_require__(3461);
var lexer = __nccwpck_require__(361);
var lineCounter = __nccwpck_require__(6628);
var parser = __nccwpck_require__(3456);
var publicApi = __nccwpck_require__(4047);
var visit = __nccwpck_require__(204);



__webpack_unused_export__ = composer.Composer;
__webpack_unused_export__ = Document.Document;
__webpack_unused_export__ = Schema.Schema;
__webpack_unused_export__ = errors.YAMLError;
__webpack_unused_export__ = errors.YAMLParseError;
__webpack_unused_export__ = errors.YAMLWarning;
__webpack_unused_export__ = Alias.Alias;
__webpack_unused_export__ = identity.isAlias;
__webpack_unused_export__ = identity.isCollection;
__webpack_unused_export__ = identity.isDocument;
__webpack_unused_export__ = identity.isMap;
__webpack_unused_export__ = identity.isNode;
__webpack_unused_export__ = identity.isPair;
__webpack_unused_export__ = identity.isScalar;
__webpack_unused_export__ = identity.isSeq;
__webpack_unused_export__ = Pair.Pair;
__webpack_unused_export__ = Scalar.Scalar;
__webpack_unused_export__ = YAMLMap.YAMLMap;
__webpack_unused_export__ = YAMLSeq.YAMLSeq;
__webpack_unused_export__ = cst;
__webpack_unused_export__ = lexer.Lexer;
__webpack_unused_export__ = lineCounter.LineCounter;
__webpack_unused_export__ = parser.Parser;
__webpack_unused_export__ = publicApi.parse;
exports.hR = publicApi.parseAllDocuments;
exports.Tp = publicApi.parseDocument;
exports.As = publicApi.stringify;
__webpack_unused_export__ = visit.visit;
__webpack_unused_export__ = visit.visitAsync;


/***/ }),

/***/ 7249:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_process = __nccwpck_require__(932);

function debug(logLevel, ...messages) {
    if (logLevel === 'debug')
        console.log(...messages);
}
function warn(logLevel, warning) {
    if (logLevel === 'debug' || logLevel === 'warn') {
        if (typeof node_process.emitWarning === 'function')
            node_process.emitWarning(warning);
        else
            console.warn(warning);
    }
}

exports.debug = debug;
exports.warn = warn;


/***/ }),

/***/ 4065:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var anchors = __nccwpck_require__(1596);
var visit = __nccwpck_require__(204);
var identity = __nccwpck_require__(1127);
var Node = __nccwpck_require__(6673);
var toJS = __nccwpck_require__(4043);

class Alias extends Node.NodeBase {
    constructor(source) {
        super(identity.ALIAS);
        this.source = source;
        Object.defineProperty(this, 'tag', {
            set() {
                throw new Error('Alias nodes cannot have tags');
            }
        });
    }
    /**
     * Resolve the value of this alias within `doc`, finding the last
     * instance of the `source` anchor before this node.
     */
    resolve(doc, ctx) {
        if (ctx?.maxAliasCount === 0)
            throw new ReferenceError('Alias resolution is disabled');
        let nodes;
        if (ctx?.aliasResolveCache) {
            nodes = ctx.aliasResolveCache;
        }
        else {
            nodes = [];
            visit.visit(doc, {
                Node: (_key, node) => {
                    if (identity.isAlias(node) || identity.hasAnchor(node))
                        nodes.push(node);
                }
            });
            if (ctx)
                ctx.aliasResolveCache = nodes;
        }
        let found = undefined;
        for (const node of nodes) {
            if (node === this)
                break;
            if (node.anchor === this.source)
                found = node;
        }
        if (found && ctx) {
            const { anchors, doc, maxAliasCount } = ctx;
            let data = anchors.get(found);
            if (!data) {
                // Resolve anchors for Node.prototype.toJS()
                toJS.toJS(found, null, ctx);
                data = anchors.get(found);
            }
            /* istanbul ignore if */
            if (data?.res === undefined) {
                const msg = 'This should not happen: Alias anchor was not resolved?';
                throw new ReferenceError(msg);
            }
            if (maxAliasCount >= 0) {
                data.count += 1;
                if (data.aliasCount === 0)
                    data.aliasCount = getAliasCount(doc, found, anchors);
                if (data.count * data.aliasCount > maxAliasCount) {
                    const msg = 'Excessive alias count indicates a resource exhaustion attack';
                    throw new ReferenceError(msg);
                }
            }
        }
        return found;
    }
    toJSON(_arg, ctx) {
        if (!ctx)
            return { source: this.source };
        const source = this.resolve(ctx.doc, ctx);
        if (!source) {
            const msg = `Unresolved alias (the anchor must be set before the alias): ${this.source}`;
            throw new ReferenceError(msg);
        }
        return ctx.anchors.get(source).res;
    }
    toString(ctx, _onComment, _onChompKeep) {
        const src = `*${this.source}`;
        if (ctx) {
            anchors.anchorIsValid(this.source);
            if (ctx.options.verifyAliasOrder && !ctx.anchors.has(this.source)) {
                const msg = `Unresolved alias (the anchor must be set before the alias): ${this.source}`;
                throw new Error(msg);
            }
            if (ctx.implicitKey)
                return `${src} `;
        }
        return src;
    }
}
function getAliasCount(doc, node, anchors) {
    if (identity.isAlias(node)) {
        const source = node.resolve(doc);
        const anchor = anchors && source && anchors.get(source);
        return anchor ? anchor.count * anchor.aliasCount : 0;
    }
    else if (identity.isCollection(node)) {
        let count = 0;
        for (const item of node.items) {
            const c = getAliasCount(doc, item, anchors);
            if (c > count)
                count = c;
        }
        return count;
    }
    else if (identity.isPair(node)) {
        const kc = getAliasCount(doc, node.key, anchors);
        const vc = getAliasCount(doc, node.value, anchors);
        return Math.max(kc, vc);
    }
    return 1;
}

exports.Alias = Alias;


/***/ }),

/***/ 101:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var createNode = __nccwpck_require__(2404);
var identity = __nccwpck_require__(1127);
var Node = __nccwpck_require__(6673);

function collectionFromPath(schema, path, value) {
    let v = value;
    for (let i = path.length - 1; i >= 0; --i) {
        const k = path[i];
        if (typeof k === 'number' && Number.isInteger(k) && k >= 0) {
            const a = [];
            a[k] = v;
            v = a;
        }
        else {
            v = new Map([[k, v]]);
        }
    }
    return createNode.createNode(v, undefined, {
        aliasDuplicateObjects: false,
        keepUndefined: false,
        onAnchor: () => {
            throw new Error('This should not happen, please report a bug.');
        },
        schema,
        sourceObjects: new Map()
    });
}
// Type guard is intentionally a little wrong so as to be more useful,
// as it does not cover untypable empty non-string iterables (e.g. []).
const isEmptyPath = (path) => path == null ||
    (typeof path === 'object' && !!path[Symbol.iterator]().next().done);
class Collection extends Node.NodeBase {
    constructor(type, schema) {
        super(type);
        Object.defineProperty(this, 'schema', {
            value: schema,
            configurable: true,
            enumerable: false,
            writable: true
        });
    }
    /**
     * Create a copy of this collection.
     *
     * @param schema - If defined, overwrites the original's schema
     */
    clone(schema) {
        const copy = Object.create(Object.getPrototypeOf(this), Object.getOwnPropertyDescriptors(this));
        if (schema)
            copy.schema = schema;
        copy.items = copy.items.map(it => identity.isNode(it) || identity.isPair(it) ? it.clone(schema) : it);
        if (this.range)
            copy.range = this.range.slice();
        return copy;
    }
    /**
     * Adds a value to the collection. For `!!map` and `!!omap` the value must
     * be a Pair instance or a `{ key, value }` object, which may not have a key
     * that already exists in the map.
     */
    addIn(path, value) {
        if (isEmptyPath(path))
            this.add(value);
        else {
            const [key, ...rest] = path;
            const node = this.get(key, true);
            if (identity.isCollection(node))
                node.addIn(rest, value);
            else if (node === undefined && this.schema)
                this.set(key, collectionFromPath(this.schema, rest, value));
            else
                throw new Error(`Expected YAML collection at ${key}. Remaining path: ${rest}`);
        }
    }
    /**
     * Removes a value from the collection.
     * @returns `true` if the item was found and removed.
     */
    deleteIn(path) {
        const [key, ...rest] = path;
        if (rest.length === 0)
            return this.delete(key);
        const node = this.get(key, true);
        if (identity.isCollection(node))
            return node.deleteIn(rest);
        else
            throw new Error(`Expected YAML collection at ${key}. Remaining path: ${rest}`);
    }
    /**
     * Returns item at `key`, or `undefined` if not found. By default unwraps
     * scalar values from their surrounding node; to disable set `keepScalar` to
     * `true` (collections are always returned intact).
     */
    getIn(path, keepScalar) {
        const [key, ...rest] = path;
        const node = this.get(key, true);
        if (rest.length === 0)
            return !keepScalar && identity.isScalar(node) ? node.value : node;
        else
            return identity.isCollection(node) ? node.getIn(rest, keepScalar) : undefined;
    }
    hasAllNullValues(allowScalar) {
        return this.items.every(node => {
            if (!identity.isPair(node))
                return false;
            const n = node.value;
            return (n == null ||
                (allowScalar &&
                    identity.isScalar(n) &&
                    n.value == null &&
                    !n.commentBefore &&
                    !n.comment &&
                    !n.tag));
        });
    }
    /**
     * Checks if the collection includes a value with the key `key`.
     */
    hasIn(path) {
        const [key, ...rest] = path;
        if (rest.length === 0)
            return this.has(key);
        const node = this.get(key, true);
        return identity.isCollection(node) ? node.hasIn(rest) : false;
    }
    /**
     * Sets a value in this collection. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     */
    setIn(path, value) {
        const [key, ...rest] = path;
        if (rest.length === 0) {
            this.set(key, value);
        }
        else {
            const node = this.get(key, true);
            if (identity.isCollection(node))
                node.setIn(rest, value);
            else if (node === undefined && this.schema)
                this.set(key, collectionFromPath(this.schema, rest, value));
            else
                throw new Error(`Expected YAML collection at ${key}. Remaining path: ${rest}`);
        }
    }
}

exports.Collection = Collection;
exports.collectionFromPath = collectionFromPath;
exports.isEmptyPath = isEmptyPath;


/***/ }),

/***/ 6673:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var applyReviver = __nccwpck_require__(3661);
var identity = __nccwpck_require__(1127);
var toJS = __nccwpck_require__(4043);

class NodeBase {
    constructor(type) {
        Object.defineProperty(this, identity.NODE_TYPE, { value: type });
    }
    /** Create a copy of this node.  */
    clone() {
        const copy = Object.create(Object.getPrototypeOf(this), Object.getOwnPropertyDescriptors(this));
        if (this.range)
            copy.range = this.range.slice();
        return copy;
    }
    /** A plain JavaScript representation of this node. */
    toJS(doc, { mapAsMap, maxAliasCount, onAnchor, reviver } = {}) {
        if (!identity.isDocument(doc))
            throw new TypeError('A document argument is required');
        const ctx = {
            anchors: new Map(),
            doc,
            keep: true,
            mapAsMap: mapAsMap === true,
            mapKeyWarned: false,
            maxAliasCount: typeof maxAliasCount === 'number' ? maxAliasCount : 100
        };
        const res = toJS.toJS(this, '', ctx);
        if (typeof onAnchor === 'function')
            for (const { count, res } of ctx.anchors.values())
                onAnchor(res, count);
        return typeof reviver === 'function'
            ? applyReviver.applyReviver(reviver, { '': res }, '', res)
            : res;
    }
}

exports.NodeBase = NodeBase;


/***/ }),

/***/ 7165:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var createNode = __nccwpck_require__(2404);
var stringifyPair = __nccwpck_require__(9748);
var addPairToJSMap = __nccwpck_require__(7104);
var identity = __nccwpck_require__(1127);

function createPair(key, value, ctx) {
    const k = createNode.createNode(key, undefined, ctx);
    const v = createNode.createNode(value, undefined, ctx);
    return new Pair(k, v);
}
class Pair {
    constructor(key, value = null) {
        Object.defineProperty(this, identity.NODE_TYPE, { value: identity.PAIR });
        this.key = key;
        this.value = value;
    }
    clone(schema) {
        let { key, value } = this;
        if (identity.isNode(key))
            key = key.clone(schema);
        if (identity.isNode(value))
            value = value.clone(schema);
        return new Pair(key, value);
    }
    toJSON(_, ctx) {
        const pair = ctx?.mapAsMap ? new Map() : {};
        return addPairToJSMap.addPairToJSMap(ctx, pair, this);
    }
    toString(ctx, onComment, onChompKeep) {
        return ctx?.doc
            ? stringifyPair.stringifyPair(this, ctx, onComment, onChompKeep)
            : JSON.stringify(this);
    }
}

exports.Pair = Pair;
exports.createPair = createPair;


/***/ }),

/***/ 3301:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Node = __nccwpck_require__(6673);
var toJS = __nccwpck_require__(4043);

const isScalarValue = (value) => !value || (typeof value !== 'function' && typeof value !== 'object');
class Scalar extends Node.NodeBase {
    constructor(value) {
        super(identity.SCALAR);
        this.value = value;
    }
    toJSON(arg, ctx) {
        return ctx?.keep ? this.value : toJS.toJS(this.value, arg, ctx);
    }
    toString() {
        return String(this.value);
    }
}
Scalar.BLOCK_FOLDED = 'BLOCK_FOLDED';
Scalar.BLOCK_LITERAL = 'BLOCK_LITERAL';
Scalar.PLAIN = 'PLAIN';
Scalar.QUOTE_DOUBLE = 'QUOTE_DOUBLE';
Scalar.QUOTE_SINGLE = 'QUOTE_SINGLE';

exports.Scalar = Scalar;
exports.isScalarValue = isScalarValue;


/***/ }),

/***/ 4454:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyCollection = __nccwpck_require__(1212);
var addPairToJSMap = __nccwpck_require__(7104);
var Collection = __nccwpck_require__(101);
var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var Scalar = __nccwpck_require__(3301);

function findPair(items, key) {
    const k = identity.isScalar(key) ? key.value : key;
    for (const it of items) {
        if (identity.isPair(it)) {
            if (it.key === key || it.key === k)
                return it;
            if (identity.isScalar(it.key) && it.key.value === k)
                return it;
        }
    }
    return undefined;
}
class YAMLMap extends Collection.Collection {
    static get tagName() {
        return 'tag:yaml.org,2002:map';
    }
    constructor(schema) {
        super(identity.MAP, schema);
        this.items = [];
    }
    /**
     * A generic collection parsing method that can be extended
     * to other node classes that inherit from YAMLMap
     */
    static from(schema, obj, ctx) {
        const { keepUndefined, replacer } = ctx;
        const map = new this(schema);
        const add = (key, value) => {
            if (typeof replacer === 'function')
                value = replacer.call(obj, key, value);
            else if (Array.isArray(replacer) && !replacer.includes(key))
                return;
            if (value !== undefined || keepUndefined)
                map.items.push(Pair.createPair(key, value, ctx));
        };
        if (obj instanceof Map) {
            for (const [key, value] of obj)
                add(key, value);
        }
        else if (obj && typeof obj === 'object') {
            for (const key of Object.keys(obj))
                add(key, obj[key]);
        }
        if (typeof schema.sortMapEntries === 'function') {
            map.items.sort(schema.sortMapEntries);
        }
        return map;
    }
    /**
     * Adds a value to the collection.
     *
     * @param overwrite - If not set `true`, using a key that is already in the
     *   collection will throw. Otherwise, overwrites the previous value.
     */
    add(pair, overwrite) {
        let _pair;
        if (identity.isPair(pair))
            _pair = pair;
        else if (!pair || typeof pair !== 'object' || !('key' in pair)) {
            // In TypeScript, this never happens.
            _pair = new Pair.Pair(pair, pair?.value);
        }
        else
            _pair = new Pair.Pair(pair.key, pair.value);
        const prev = findPair(this.items, _pair.key);
        const sortEntries = this.schema?.sortMapEntries;
        if (prev) {
            if (!overwrite)
                throw new Error(`Key ${_pair.key} already set`);
            // For scalars, keep the old node & its comments and anchors
            if (identity.isScalar(prev.value) && Scalar.isScalarValue(_pair.value))
                prev.value.value = _pair.value;
            else
                prev.value = _pair.value;
        }
        else if (sortEntries) {
            const i = this.items.findIndex(item => sortEntries(_pair, item) < 0);
            if (i === -1)
                this.items.push(_pair);
            else
                this.items.splice(i, 0, _pair);
        }
        else {
            this.items.push(_pair);
        }
    }
    delete(key) {
        const it = findPair(this.items, key);
        if (!it)
            return false;
        const del = this.items.splice(this.items.indexOf(it), 1);
        return del.length > 0;
    }
    get(key, keepScalar) {
        const it = findPair(this.items, key);
        const node = it?.value;
        return (!keepScalar && identity.isScalar(node) ? node.value : node) ?? undefined;
    }
    has(key) {
        return !!findPair(this.items, key);
    }
    set(key, value) {
        this.add(new Pair.Pair(key, value), true);
    }
    /**
     * @param ctx - Conversion context, originally set in Document#toJS()
     * @param {Class} Type - If set, forces the returned collection type
     * @returns Instance of Type, Map, or Object
     */
    toJSON(_, ctx, Type) {
        const map = Type ? new Type() : ctx?.mapAsMap ? new Map() : {};
        if (ctx?.onCreate)
            ctx.onCreate(map);
        for (const item of this.items)
            addPairToJSMap.addPairToJSMap(ctx, map, item);
        return map;
    }
    toString(ctx, onComment, onChompKeep) {
        if (!ctx)
            return JSON.stringify(this);
        for (const item of this.items) {
            if (!identity.isPair(item))
                throw new Error(`Map items must all be pairs; found ${JSON.stringify(item)} instead`);
        }
        if (!ctx.allNullValues && this.hasAllNullValues(false))
            ctx = Object.assign({}, ctx, { allNullValues: true });
        return stringifyCollection.stringifyCollection(this, ctx, {
            blockItemPrefix: '',
            flowChars: { start: '{', end: '}' },
            itemIndent: ctx.indent || '',
            onChompKeep,
            onComment
        });
    }
}

exports.YAMLMap = YAMLMap;
exports.findPair = findPair;


/***/ }),

/***/ 2223:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var createNode = __nccwpck_require__(2404);
var stringifyCollection = __nccwpck_require__(1212);
var Collection = __nccwpck_require__(101);
var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var toJS = __nccwpck_require__(4043);

class YAMLSeq extends Collection.Collection {
    static get tagName() {
        return 'tag:yaml.org,2002:seq';
    }
    constructor(schema) {
        super(identity.SEQ, schema);
        this.items = [];
    }
    add(value) {
        this.items.push(value);
    }
    /**
     * Removes a value from the collection.
     *
     * `key` must contain a representation of an integer for this to succeed.
     * It may be wrapped in a `Scalar`.
     *
     * @returns `true` if the item was found and removed.
     */
    delete(key) {
        const idx = asItemIndex(key);
        if (typeof idx !== 'number')
            return false;
        const del = this.items.splice(idx, 1);
        return del.length > 0;
    }
    get(key, keepScalar) {
        const idx = asItemIndex(key);
        if (typeof idx !== 'number')
            return undefined;
        const it = this.items[idx];
        return !keepScalar && identity.isScalar(it) ? it.value : it;
    }
    /**
     * Checks if the collection includes a value with the key `key`.
     *
     * `key` must contain a representation of an integer for this to succeed.
     * It may be wrapped in a `Scalar`.
     */
    has(key) {
        const idx = asItemIndex(key);
        return typeof idx === 'number' && idx < this.items.length;
    }
    /**
     * Sets a value in this collection. For `!!set`, `value` needs to be a
     * boolean to add/remove the item from the set.
     *
     * If `key` does not contain a representation of an integer, this will throw.
     * It may be wrapped in a `Scalar`.
     */
    set(key, value) {
        const idx = asItemIndex(key);
        if (typeof idx !== 'number')
            throw new Error(`Expected a valid index, not ${key}.`);
        const prev = this.items[idx];
        if (identity.isScalar(prev) && Scalar.isScalarValue(value))
            prev.value = value;
        else
            this.items[idx] = value;
    }
    toJSON(_, ctx) {
        const seq = [];
        if (ctx?.onCreate)
            ctx.onCreate(seq);
        let i = 0;
        for (const item of this.items)
            seq.push(toJS.toJS(item, String(i++), ctx));
        return seq;
    }
    toString(ctx, onComment, onChompKeep) {
        if (!ctx)
            return JSON.stringify(this);
        return stringifyCollection.stringifyCollection(this, ctx, {
            blockItemPrefix: '- ',
            flowChars: { start: '[', end: ']' },
            itemIndent: (ctx.indent || '') + '  ',
            onChompKeep,
            onComment
        });
    }
    static from(schema, obj, ctx) {
        const { replacer } = ctx;
        const seq = new this(schema);
        if (obj && Symbol.iterator in Object(obj)) {
            let i = 0;
            for (let it of obj) {
                if (typeof replacer === 'function') {
                    const key = obj instanceof Set ? it : String(i++);
                    it = replacer.call(obj, key, it);
                }
                seq.items.push(createNode.createNode(it, undefined, ctx));
            }
        }
        return seq;
    }
}
function asItemIndex(key) {
    let idx = identity.isScalar(key) ? key.value : key;
    if (idx && typeof idx === 'string')
        idx = Number(idx);
    return typeof idx === 'number' && Number.isInteger(idx) && idx >= 0
        ? idx
        : null;
}

exports.YAMLSeq = YAMLSeq;


/***/ }),

/***/ 7104:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var log = __nccwpck_require__(7249);
var merge = __nccwpck_require__(452);
var stringify = __nccwpck_require__(2148);
var identity = __nccwpck_require__(1127);
var toJS = __nccwpck_require__(4043);

function addPairToJSMap(ctx, map, { key, value }) {
    if (identity.isNode(key) && key.addToJSMap)
        key.addToJSMap(ctx, map, value);
    // TODO: Should drop this special case for bare << handling
    else if (merge.isMergeKey(ctx, key))
        merge.addMergeToJSMap(ctx, map, value);
    else {
        const jsKey = toJS.toJS(key, '', ctx);
        if (map instanceof Map) {
            map.set(jsKey, toJS.toJS(value, jsKey, ctx));
        }
        else if (map instanceof Set) {
            map.add(jsKey);
        }
        else {
            const stringKey = stringifyKey(key, jsKey, ctx);
            const jsValue = toJS.toJS(value, stringKey, ctx);
            if (stringKey in map)
                Object.defineProperty(map, stringKey, {
                    value: jsValue,
                    writable: true,
                    enumerable: true,
                    configurable: true
                });
            else
                map[stringKey] = jsValue;
        }
    }
    return map;
}
function stringifyKey(key, jsKey, ctx) {
    if (jsKey === null)
        return '';
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    if (typeof jsKey !== 'object')
        return String(jsKey);
    if (identity.isNode(key) && ctx?.doc) {
        const strCtx = stringify.createStringifyContext(ctx.doc, {});
        strCtx.anchors = new Set();
        for (const node of ctx.anchors.keys())
            strCtx.anchors.add(node.anchor);
        strCtx.inFlow = true;
        strCtx.inStringifyKey = true;
        const strKey = key.toString(strCtx);
        if (!ctx.mapKeyWarned) {
            let jsonStr = JSON.stringify(strKey);
            if (jsonStr.length > 40)
                jsonStr = jsonStr.substring(0, 36) + '..."';
            log.warn(ctx.doc.options.logLevel, `Keys with collection values will be stringified due to JS Object restrictions: ${jsonStr}. Set mapAsMap: true to use object keys.`);
            ctx.mapKeyWarned = true;
        }
        return strKey;
    }
    return JSON.stringify(jsKey);
}

exports.addPairToJSMap = addPairToJSMap;


/***/ }),

/***/ 1127:
/***/ ((__unused_webpack_module, exports) => {



const ALIAS = Symbol.for('yaml.alias');
const DOC = Symbol.for('yaml.document');
const MAP = Symbol.for('yaml.map');
const PAIR = Symbol.for('yaml.pair');
const SCALAR = Symbol.for('yaml.scalar');
const SEQ = Symbol.for('yaml.seq');
const NODE_TYPE = Symbol.for('yaml.node.type');
const isAlias = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === ALIAS;
const isDocument = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === DOC;
const isMap = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === MAP;
const isPair = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === PAIR;
const isScalar = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === SCALAR;
const isSeq = (node) => !!node && typeof node === 'object' && node[NODE_TYPE] === SEQ;
function isCollection(node) {
    if (node && typeof node === 'object')
        switch (node[NODE_TYPE]) {
            case MAP:
            case SEQ:
                return true;
        }
    return false;
}
function isNode(node) {
    if (node && typeof node === 'object')
        switch (node[NODE_TYPE]) {
            case ALIAS:
            case MAP:
            case SCALAR:
            case SEQ:
                return true;
        }
    return false;
}
const hasAnchor = (node) => (isScalar(node) || isCollection(node)) && !!node.anchor;

exports.ALIAS = ALIAS;
exports.DOC = DOC;
exports.MAP = MAP;
exports.NODE_TYPE = NODE_TYPE;
exports.PAIR = PAIR;
exports.SCALAR = SCALAR;
exports.SEQ = SEQ;
exports.hasAnchor = hasAnchor;
exports.isAlias = isAlias;
exports.isCollection = isCollection;
exports.isDocument = isDocument;
exports.isMap = isMap;
exports.isNode = isNode;
exports.isPair = isPair;
exports.isScalar = isScalar;
exports.isSeq = isSeq;


/***/ }),

/***/ 4043:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);

/**
 * Recursively convert any node or its contents to native JavaScript
 *
 * @param value - The input value
 * @param arg - If `value` defines a `toJSON()` method, use this
 *   as its first argument
 * @param ctx - Conversion context, originally set in Document#toJS(). If
 *   `{ keep: true }` is not set, output should be suitable for JSON
 *   stringification.
 */
function toJS(value, arg, ctx) {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return
    if (Array.isArray(value))
        return value.map((v, i) => toJS(v, String(i), ctx));
    if (value && typeof value.toJSON === 'function') {
        // eslint-disable-next-line @typescript-eslint/no-unsafe-call
        if (!ctx || !identity.hasAnchor(value))
            return value.toJSON(arg, ctx);
        const data = { aliasCount: 0, count: 1, res: undefined };
        ctx.anchors.set(value, data);
        ctx.onCreate = res => {
            data.res = res;
            delete ctx.onCreate;
        };
        const res = value.toJSON(arg, ctx);
        if (ctx.onCreate)
            ctx.onCreate(res);
        return res;
    }
    if (typeof value === 'bigint' && !ctx?.keep)
        return Number(value);
    return value;
}

exports.toJS = toJS;


/***/ }),

/***/ 110:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var resolveBlockScalar = __nccwpck_require__(8913);
var resolveFlowScalar = __nccwpck_require__(6842);
var errors = __nccwpck_require__(1464);
var stringifyString = __nccwpck_require__(3069);

function resolveAsScalar(token, strict = true, onError) {
    if (token) {
        const _onError = (pos, code, message) => {
            const offset = typeof pos === 'number' ? pos : Array.isArray(pos) ? pos[0] : pos.offset;
            if (onError)
                onError(offset, code, message);
            else
                throw new errors.YAMLParseError([offset, offset + 1], code, message);
        };
        switch (token.type) {
            case 'scalar':
            case 'single-quoted-scalar':
            case 'double-quoted-scalar':
                return resolveFlowScalar.resolveFlowScalar(token, strict, _onError);
            case 'block-scalar':
                return resolveBlockScalar.resolveBlockScalar({ options: { strict } }, token, _onError);
        }
    }
    return null;
}
/**
 * Create a new scalar token with `value`
 *
 * Values that represent an actual string but may be parsed as a different type should use a `type` other than `'PLAIN'`,
 * as this function does not support any schema operations and won't check for such conflicts.
 *
 * @param value The string representation of the value, which will have its content properly indented.
 * @param context.end Comments and whitespace after the end of the value, or after the block scalar header. If undefined, a newline will be added.
 * @param context.implicitKey Being within an implicit key may affect the resolved type of the token's value.
 * @param context.indent The indent level of the token.
 * @param context.inFlow Is this scalar within a flow collection? This may affect the resolved type of the token's value.
 * @param context.offset The offset position of the token.
 * @param context.type The preferred type of the scalar token. If undefined, the previous type of the `token` will be used, defaulting to `'PLAIN'`.
 */
function createScalarToken(value, context) {
    const { implicitKey = false, indent, inFlow = false, offset = -1, type = 'PLAIN' } = context;
    const source = stringifyString.stringifyString({ type, value }, {
        implicitKey,
        indent: indent > 0 ? ' '.repeat(indent) : '',
        inFlow,
        options: { blockQuote: true, lineWidth: -1 }
    });
    const end = context.end ?? [
        { type: 'newline', offset: -1, indent, source: '\n' }
    ];
    switch (source[0]) {
        case '|':
        case '>': {
            const he = source.indexOf('\n');
            const head = source.substring(0, he);
            const body = source.substring(he + 1) + '\n';
            const props = [
                { type: 'block-scalar-header', offset, indent, source: head }
            ];
            if (!addEndtoBlockProps(props, end))
                props.push({ type: 'newline', offset: -1, indent, source: '\n' });
            return { type: 'block-scalar', offset, indent, props, source: body };
        }
        case '"':
            return { type: 'double-quoted-scalar', offset, indent, source, end };
        case "'":
            return { type: 'single-quoted-scalar', offset, indent, source, end };
        default:
            return { type: 'scalar', offset, indent, source, end };
    }
}
/**
 * Set the value of `token` to the given string `value`, overwriting any previous contents and type that it may have.
 *
 * Best efforts are made to retain any comments previously associated with the `token`,
 * though all contents within a collection's `items` will be overwritten.
 *
 * Values that represent an actual string but may be parsed as a different type should use a `type` other than `'PLAIN'`,
 * as this function does not support any schema operations and won't check for such conflicts.
 *
 * @param token Any token. If it does not include an `indent` value, the value will be stringified as if it were an implicit key.
 * @param value The string representation of the value, which will have its content properly indented.
 * @param context.afterKey In most cases, values after a key should have an additional level of indentation.
 * @param context.implicitKey Being within an implicit key may affect the resolved type of the token's value.
 * @param context.inFlow Being within a flow collection may affect the resolved type of the token's value.
 * @param context.type The preferred type of the scalar token. If undefined, the previous type of the `token` will be used, defaulting to `'PLAIN'`.
 */
function setScalarValue(token, value, context = {}) {
    let { afterKey = false, implicitKey = false, inFlow = false, type } = context;
    let indent = 'indent' in token ? token.indent : null;
    if (afterKey && typeof indent === 'number')
        indent += 2;
    if (!type)
        switch (token.type) {
            case 'single-quoted-scalar':
                type = 'QUOTE_SINGLE';
                break;
            case 'double-quoted-scalar':
                type = 'QUOTE_DOUBLE';
                break;
            case 'block-scalar': {
                const header = token.props[0];
                if (header.type !== 'block-scalar-header')
                    throw new Error('Invalid block scalar header');
                type = header.source[0] === '>' ? 'BLOCK_FOLDED' : 'BLOCK_LITERAL';
                break;
            }
            default:
                type = 'PLAIN';
        }
    const source = stringifyString.stringifyString({ type, value }, {
        implicitKey: implicitKey || indent === null,
        indent: indent !== null && indent > 0 ? ' '.repeat(indent) : '',
        inFlow,
        options: { blockQuote: true, lineWidth: -1 }
    });
    switch (source[0]) {
        case '|':
        case '>':
            setBlockScalarValue(token, source);
            break;
        case '"':
            setFlowScalarValue(token, source, 'double-quoted-scalar');
            break;
        case "'":
            setFlowScalarValue(token, source, 'single-quoted-scalar');
            break;
        default:
            setFlowScalarValue(token, source, 'scalar');
    }
}
function setBlockScalarValue(token, source) {
    const he = source.indexOf('\n');
    const head = source.substring(0, he);
    const body = source.substring(he + 1) + '\n';
    if (token.type === 'block-scalar') {
        const header = token.props[0];
        if (header.type !== 'block-scalar-header')
            throw new Error('Invalid block scalar header');
        header.source = head;
        token.source = body;
    }
    else {
        const { offset } = token;
        const indent = 'indent' in token ? token.indent : -1;
        const props = [
            { type: 'block-scalar-header', offset, indent, source: head }
        ];
        if (!addEndtoBlockProps(props, 'end' in token ? token.end : undefined))
            props.push({ type: 'newline', offset: -1, indent, source: '\n' });
        for (const key of Object.keys(token))
            if (key !== 'type' && key !== 'offset')
                delete token[key];
        Object.assign(token, { type: 'block-scalar', indent, props, source: body });
    }
}
/** @returns `true` if last token is a newline */
function addEndtoBlockProps(props, end) {
    if (end)
        for (const st of end)
            switch (st.type) {
                case 'space':
                case 'comment':
                    props.push(st);
                    break;
                case 'newline':
                    props.push(st);
                    return true;
            }
    return false;
}
function setFlowScalarValue(token, source, type) {
    switch (token.type) {
        case 'scalar':
        case 'double-quoted-scalar':
        case 'single-quoted-scalar':
            token.type = type;
            token.source = source;
            break;
        case 'block-scalar': {
            const end = token.props.slice(1);
            let oa = source.length;
            if (token.props[0].type === 'block-scalar-header')
                oa -= token.props[0].source.length;
            for (const tok of end)
                tok.offset += oa;
            delete token.props;
            Object.assign(token, { type, source, end });
            break;
        }
        case 'block-map':
        case 'block-seq': {
            const offset = token.offset + source.length;
            const nl = { type: 'newline', offset, indent: token.indent, source: '\n' };
            delete token.items;
            Object.assign(token, { type, source, end: [nl] });
            break;
        }
        default: {
            const indent = 'indent' in token ? token.indent : -1;
            const end = 'end' in token && Array.isArray(token.end)
                ? token.end.filter(st => st.type === 'space' ||
                    st.type === 'comment' ||
                    st.type === 'newline')
                : [];
            for (const key of Object.keys(token))
                if (key !== 'type' && key !== 'offset')
                    delete token[key];
            Object.assign(token, { type, indent, source, end });
        }
    }
}

exports.createScalarToken = createScalarToken;
exports.resolveAsScalar = resolveAsScalar;
exports.setScalarValue = setScalarValue;


/***/ }),

/***/ 1733:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Stringify a CST document, token, or collection item
 *
 * Fair warning: This applies no validation whatsoever, and
 * simply concatenates the sources in their logical order.
 */
const stringify = (cst) => 'type' in cst ? stringifyToken(cst) : stringifyItem(cst);
function stringifyToken(token) {
    switch (token.type) {
        case 'block-scalar': {
            let res = '';
            for (const tok of token.props)
                res += stringifyToken(tok);
            return res + token.source;
        }
        case 'block-map':
        case 'block-seq': {
            let res = '';
            for (const item of token.items)
                res += stringifyItem(item);
            return res;
        }
        case 'flow-collection': {
            let res = token.start.source;
            for (const item of token.items)
                res += stringifyItem(item);
            for (const st of token.end)
                res += st.source;
            return res;
        }
        case 'document': {
            let res = stringifyItem(token);
            if (token.end)
                for (const st of token.end)
                    res += st.source;
            return res;
        }
        default: {
            let res = token.source;
            if ('end' in token && token.end)
                for (const st of token.end)
                    res += st.source;
            return res;
        }
    }
}
function stringifyItem({ start, key, sep, value }) {
    let res = '';
    for (const st of start)
        res += st.source;
    if (key)
        res += stringifyToken(key);
    if (sep)
        for (const st of sep)
            res += st.source;
    if (value)
        res += stringifyToken(value);
    return res;
}

exports.stringify = stringify;


/***/ }),

/***/ 7715:
/***/ ((__unused_webpack_module, exports) => {



const BREAK = Symbol('break visit');
const SKIP = Symbol('skip children');
const REMOVE = Symbol('remove item');
/**
 * Apply a visitor to a CST document or item.
 *
 * Walks through the tree (depth-first) starting from the root, calling a
 * `visitor` function with two arguments when entering each item:
 *   - `item`: The current item, which included the following members:
 *     - `start: SourceToken[]` – Source tokens before the key or value,
 *       possibly including its anchor or tag.
 *     - `key?: Token | null` – Set for pair values. May then be `null`, if
 *       the key before the `:` separator is empty.
 *     - `sep?: SourceToken[]` – Source tokens between the key and the value,
 *       which should include the `:` map value indicator if `value` is set.
 *     - `value?: Token` – The value of a sequence item, or of a map pair.
 *   - `path`: The steps from the root to the current node, as an array of
 *     `['key' | 'value', number]` tuples.
 *
 * The return value of the visitor may be used to control the traversal:
 *   - `undefined` (default): Do nothing and continue
 *   - `visit.SKIP`: Do not visit the children of this token, continue with
 *      next sibling
 *   - `visit.BREAK`: Terminate traversal completely
 *   - `visit.REMOVE`: Remove the current item, then continue with the next one
 *   - `number`: Set the index of the next step. This is useful especially if
 *     the index of the current token has changed.
 *   - `function`: Define the next visitor for this item. After the original
 *     visitor is called on item entry, next visitors are called after handling
 *     a non-empty `key` and when exiting the item.
 */
function visit(cst, visitor) {
    if ('type' in cst && cst.type === 'document')
        cst = { start: cst.start, value: cst.value };
    _visit(Object.freeze([]), cst, visitor);
}
// Without the `as symbol` casts, TS declares these in the `visit`
// namespace using `var`, but then complains about that because
// `unique symbol` must be `const`.
/** Terminate visit traversal completely */
visit.BREAK = BREAK;
/** Do not visit the children of the current item */
visit.SKIP = SKIP;
/** Remove the current item */
visit.REMOVE = REMOVE;
/** Find the item at `path` from `cst` as the root */
visit.itemAtPath = (cst, path) => {
    let item = cst;
    for (const [field, index] of path) {
        const tok = item?.[field];
        if (tok && 'items' in tok) {
            item = tok.items[index];
        }
        else
            return undefined;
    }
    return item;
};
/**
 * Get the immediate parent collection of the item at `path` from `cst` as the root.
 *
 * Throws an error if the collection is not found, which should never happen if the item itself exists.
 */
visit.parentCollection = (cst, path) => {
    const parent = visit.itemAtPath(cst, path.slice(0, -1));
    const field = path[path.length - 1][0];
    const coll = parent?.[field];
    if (coll && 'items' in coll)
        return coll;
    throw new Error('Parent collection not found');
};
function _visit(path, item, visitor) {
    let ctrl = visitor(item, path);
    if (typeof ctrl === 'symbol')
        return ctrl;
    for (const field of ['key', 'value']) {
        const token = item[field];
        if (token && 'items' in token) {
            for (let i = 0; i < token.items.length; ++i) {
                const ci = _visit(Object.freeze(path.concat([[field, i]])), token.items[i], visitor);
                if (typeof ci === 'number')
                    i = ci - 1;
                else if (ci === BREAK)
                    return BREAK;
                else if (ci === REMOVE) {
                    token.items.splice(i, 1);
                    i -= 1;
                }
            }
            if (typeof ctrl === 'function' && field === 'key')
                ctrl = ctrl(item, path);
        }
    }
    return typeof ctrl === 'function' ? ctrl(item, path) : ctrl;
}

exports.visit = visit;


/***/ }),

/***/ 3461:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var cstScalar = __nccwpck_require__(110);
var cstStringify = __nccwpck_require__(1733);
var cstVisit = __nccwpck_require__(7715);

/** The byte order mark */
const BOM = '\u{FEFF}';
/** Start of doc-mode */
const DOCUMENT = '\x02'; // C0: Start of Text
/** Unexpected end of flow-mode */
const FLOW_END = '\x18'; // C0: Cancel
/** Next token is a scalar value */
const SCALAR = '\x1f'; // C0: Unit Separator
/** @returns `true` if `token` is a flow or block collection */
const isCollection = (token) => !!token && 'items' in token;
/** @returns `true` if `token` is a flow or block scalar; not an alias */
const isScalar = (token) => !!token &&
    (token.type === 'scalar' ||
        token.type === 'single-quoted-scalar' ||
        token.type === 'double-quoted-scalar' ||
        token.type === 'block-scalar');
/* istanbul ignore next */
/** Get a printable representation of a lexer token */
function prettyToken(token) {
    switch (token) {
        case BOM:
            return '<BOM>';
        case DOCUMENT:
            return '<DOC>';
        case FLOW_END:
            return '<FLOW_END>';
        case SCALAR:
            return '<SCALAR>';
        default:
            return JSON.stringify(token);
    }
}
/** Identify the type of a lexer token. May return `null` for unknown tokens. */
function tokenType(source) {
    switch (source) {
        case BOM:
            return 'byte-order-mark';
        case DOCUMENT:
            return 'doc-mode';
        case FLOW_END:
            return 'flow-error-end';
        case SCALAR:
            return 'scalar';
        case '---':
            return 'doc-start';
        case '...':
            return 'doc-end';
        case '':
        case '\n':
        case '\r\n':
            return 'newline';
        case '-':
            return 'seq-item-ind';
        case '?':
            return 'explicit-key-ind';
        case ':':
            return 'map-value-ind';
        case '{':
            return 'flow-map-start';
        case '}':
            return 'flow-map-end';
        case '[':
            return 'flow-seq-start';
        case ']':
            return 'flow-seq-end';
        case ',':
            return 'comma';
    }
    switch (source[0]) {
        case ' ':
        case '\t':
            return 'space';
        case '#':
            return 'comment';
        case '%':
            return 'directive-line';
        case '*':
            return 'alias';
        case '&':
            return 'anchor';
        case '!':
            return 'tag';
        case "'":
            return 'single-quoted-scalar';
        case '"':
            return 'double-quoted-scalar';
        case '|':
        case '>':
            return 'block-scalar-header';
    }
    return null;
}

exports.createScalarToken = cstScalar.createScalarToken;
exports.resolveAsScalar = cstScalar.resolveAsScalar;
exports.setScalarValue = cstScalar.setScalarValue;
exports.stringify = cstStringify.stringify;
exports.visit = cstVisit.visit;
exports.BOM = BOM;
exports.DOCUMENT = DOCUMENT;
exports.FLOW_END = FLOW_END;
exports.SCALAR = SCALAR;
exports.isCollection = isCollection;
exports.isScalar = isScalar;
exports.prettyToken = prettyToken;
exports.tokenType = tokenType;


/***/ }),

/***/ 361:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var cst = __nccwpck_require__(3461);

/*
START -> stream

stream
  directive -> line-end -> stream
  indent + line-end -> stream
  [else] -> line-start

line-end
  comment -> line-end
  newline -> .
  input-end -> END

line-start
  doc-start -> doc
  doc-end -> stream
  [else] -> indent -> block-start

block-start
  seq-item-start -> block-start
  explicit-key-start -> block-start
  map-value-start -> block-start
  [else] -> doc

doc
  line-end -> line-start
  spaces -> doc
  anchor -> doc
  tag -> doc
  flow-start -> flow -> doc
  flow-end -> error -> doc
  seq-item-start -> error -> doc
  explicit-key-start -> error -> doc
  map-value-start -> doc
  alias -> doc
  quote-start -> quoted-scalar -> doc
  block-scalar-header -> line-end -> block-scalar(min) -> line-start
  [else] -> plain-scalar(false, min) -> doc

flow
  line-end -> flow
  spaces -> flow
  anchor -> flow
  tag -> flow
  flow-start -> flow -> flow
  flow-end -> .
  seq-item-start -> error -> flow
  explicit-key-start -> flow
  map-value-start -> flow
  alias -> flow
  quote-start -> quoted-scalar -> flow
  comma -> flow
  [else] -> plain-scalar(true, 0) -> flow

quoted-scalar
  quote-end -> .
  [else] -> quoted-scalar

block-scalar(min)
  newline + peek(indent < min) -> .
  [else] -> block-scalar(min)

plain-scalar(is-flow, min)
  scalar-end(is-flow) -> .
  peek(newline + (indent < min)) -> .
  [else] -> plain-scalar(min)
*/
function isEmpty(ch) {
    switch (ch) {
        case undefined:
        case ' ':
        case '\n':
        case '\r':
        case '\t':
            return true;
        default:
            return false;
    }
}
const hexDigits = new Set('0123456789ABCDEFabcdef');
const tagChars = new Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()");
const flowIndicatorChars = new Set(',[]{}');
const invalidAnchorChars = new Set(' ,[]{}\n\r\t');
const isNotAnchorChar = (ch) => !ch || invalidAnchorChars.has(ch);
/**
 * Splits an input string into lexical tokens, i.e. smaller strings that are
 * easily identifiable by `tokens.tokenType()`.
 *
 * Lexing starts always in a "stream" context. Incomplete input may be buffered
 * until a complete token can be emitted.
 *
 * In addition to slices of the original input, the following control characters
 * may also be emitted:
 *
 * - `\x02` (Start of Text): A document starts with the next token
 * - `\x18` (Cancel): Unexpected end of flow-mode (indicates an error)
 * - `\x1f` (Unit Separator): Next token is a scalar value
 * - `\u{FEFF}` (Byte order mark): Emitted separately outside documents
 */
class Lexer {
    constructor() {
        /**
         * Flag indicating whether the end of the current buffer marks the end of
         * all input
         */
        this.atEnd = false;
        /**
         * Explicit indent set in block scalar header, as an offset from the current
         * minimum indent, so e.g. set to 1 from a header `|2+`. Set to -1 if not
         * explicitly set.
         */
        this.blockScalarIndent = -1;
        /**
         * Block scalars that include a + (keep) chomping indicator in their header
         * include trailing empty lines, which are otherwise excluded from the
         * scalar's contents.
         */
        this.blockScalarKeep = false;
        /** Current input */
        this.buffer = '';
        /**
         * Flag noting whether the map value indicator : can immediately follow this
         * node within a flow context.
         */
        this.flowKey = false;
        /** Count of surrounding flow collection levels. */
        this.flowLevel = 0;
        /**
         * Minimum level of indentation required for next lines to be parsed as a
         * part of the current scalar value.
         */
        this.indentNext = 0;
        /** Indentation level of the current line. */
        this.indentValue = 0;
        /** Position of the next \n character. */
        this.lineEndPos = null;
        /** Stores the state of the lexer if reaching the end of incpomplete input */
        this.next = null;
        /** A pointer to `buffer`; the current position of the lexer. */
        this.pos = 0;
    }
    /**
     * Generate YAML tokens from the `source` string. If `incomplete`,
     * a part of the last line may be left as a buffer for the next call.
     *
     * @returns A generator of lexical tokens
     */
    *lex(source, incomplete = false) {
        if (source) {
            if (typeof source !== 'string')
                throw TypeError('source is not a string');
            this.buffer = this.buffer ? this.buffer + source : source;
            this.lineEndPos = null;
        }
        this.atEnd = !incomplete;
        let next = this.next ?? 'stream';
        while (next && (incomplete || this.hasChars(1)))
            next = yield* this.parseNext(next);
    }
    atLineEnd() {
        let i = this.pos;
        let ch = this.buffer[i];
        while (ch === ' ' || ch === '\t')
            ch = this.buffer[++i];
        if (!ch || ch === '#' || ch === '\n')
            return true;
        if (ch === '\r')
            return this.buffer[i + 1] === '\n';
        return false;
    }
    charAt(n) {
        return this.buffer[this.pos + n];
    }
    continueScalar(offset) {
        let ch = this.buffer[offset];
        if (this.indentNext > 0) {
            let indent = 0;
            while (ch === ' ')
                ch = this.buffer[++indent + offset];
            if (ch === '\r') {
                const next = this.buffer[indent + offset + 1];
                if (next === '\n' || (!next && !this.atEnd))
                    return offset + indent + 1;
            }
            return ch === '\n' || indent >= this.indentNext || (!ch && !this.atEnd)
                ? offset + indent
                : -1;
        }
        if (ch === '-' || ch === '.') {
            const dt = this.buffer.substr(offset, 3);
            if ((dt === '---' || dt === '...') && isEmpty(this.buffer[offset + 3]))
                return -1;
        }
        return offset;
    }
    getLine() {
        let end = this.lineEndPos;
        if (typeof end !== 'number' || (end !== -1 && end < this.pos)) {
            end = this.buffer.indexOf('\n', this.pos);
            this.lineEndPos = end;
        }
        if (end === -1)
            return this.atEnd ? this.buffer.substring(this.pos) : null;
        if (this.buffer[end - 1] === '\r')
            end -= 1;
        return this.buffer.substring(this.pos, end);
    }
    hasChars(n) {
        return this.pos + n <= this.buffer.length;
    }
    setNext(state) {
        this.buffer = this.buffer.substring(this.pos);
        this.pos = 0;
        this.lineEndPos = null;
        this.next = state;
        return null;
    }
    peek(n) {
        return this.buffer.substr(this.pos, n);
    }
    *parseNext(next) {
        switch (next) {
            case 'stream':
                return yield* this.parseStream();
            case 'line-start':
                return yield* this.parseLineStart();
            case 'block-start':
                return yield* this.parseBlockStart();
            case 'doc':
                return yield* this.parseDocument();
            case 'flow':
                return yield* this.parseFlowCollection();
            case 'quoted-scalar':
                return yield* this.parseQuotedScalar();
            case 'block-scalar':
                return yield* this.parseBlockScalar();
            case 'plain-scalar':
                return yield* this.parsePlainScalar();
        }
    }
    *parseStream() {
        let line = this.getLine();
        if (line === null)
            return this.setNext('stream');
        if (line[0] === cst.BOM) {
            yield* this.pushCount(1);
            line = line.substring(1);
        }
        if (line[0] === '%') {
            let dirEnd = line.length;
            let cs = line.indexOf('#');
            while (cs !== -1) {
                const ch = line[cs - 1];
                if (ch === ' ' || ch === '\t') {
                    dirEnd = cs - 1;
                    break;
                }
                else {
                    cs = line.indexOf('#', cs + 1);
                }
            }
            while (true) {
                const ch = line[dirEnd - 1];
                if (ch === ' ' || ch === '\t')
                    dirEnd -= 1;
                else
                    break;
            }
            const n = (yield* this.pushCount(dirEnd)) + (yield* this.pushSpaces(true));
            yield* this.pushCount(line.length - n); // possible comment
            this.pushNewline();
            return 'stream';
        }
        if (this.atLineEnd()) {
            const sp = yield* this.pushSpaces(true);
            yield* this.pushCount(line.length - sp);
            yield* this.pushNewline();
            return 'stream';
        }
        yield cst.DOCUMENT;
        return yield* this.parseLineStart();
    }
    *parseLineStart() {
        const ch = this.charAt(0);
        if (!ch && !this.atEnd)
            return this.setNext('line-start');
        if (ch === '-' || ch === '.') {
            if (!this.atEnd && !this.hasChars(4))
                return this.setNext('line-start');
            const s = this.peek(3);
            if ((s === '---' || s === '...') && isEmpty(this.charAt(3))) {
                yield* this.pushCount(3);
                this.indentValue = 0;
                this.indentNext = 0;
                return s === '---' ? 'doc' : 'stream';
            }
        }
        this.indentValue = yield* this.pushSpaces(false);
        if (this.indentNext > this.indentValue && !isEmpty(this.charAt(1)))
            this.indentNext = this.indentValue;
        return yield* this.parseBlockStart();
    }
    *parseBlockStart() {
        const [ch0, ch1] = this.peek(2);
        if (!ch1 && !this.atEnd)
            return this.setNext('block-start');
        if ((ch0 === '-' || ch0 === '?' || ch0 === ':') && isEmpty(ch1)) {
            const n = (yield* this.pushCount(1)) + (yield* this.pushSpaces(true));
            this.indentNext = this.indentValue + 1;
            this.indentValue += n;
            return 'block-start';
        }
        return 'doc';
    }
    *parseDocument() {
        yield* this.pushSpaces(true);
        const line = this.getLine();
        if (line === null)
            return this.setNext('doc');
        let n = yield* this.pushIndicators();
        switch (line[n]) {
            case '#':
                yield* this.pushCount(line.length - n);
            // fallthrough
            case undefined:
                yield* this.pushNewline();
                return yield* this.parseLineStart();
            case '{':
            case '[':
                yield* this.pushCount(1);
                this.flowKey = false;
                this.flowLevel = 1;
                return 'flow';
            case '}':
            case ']':
                // this is an error
                yield* this.pushCount(1);
                return 'doc';
            case '*':
                yield* this.pushUntil(isNotAnchorChar);
                return 'doc';
            case '"':
            case "'":
                return yield* this.parseQuotedScalar();
            case '|':
            case '>':
                n += yield* this.parseBlockScalarHeader();
                n += yield* this.pushSpaces(true);
                yield* this.pushCount(line.length - n);
                yield* this.pushNewline();
                return yield* this.parseBlockScalar();
            default:
                return yield* this.parsePlainScalar();
        }
    }
    *parseFlowCollection() {
        let nl, sp;
        let indent = -1;
        do {
            nl = yield* this.pushNewline();
            if (nl > 0) {
                sp = yield* this.pushSpaces(false);
                this.indentValue = indent = sp;
            }
            else {
                sp = 0;
            }
            sp += yield* this.pushSpaces(true);
        } while (nl + sp > 0);
        const line = this.getLine();
        if (line === null)
            return this.setNext('flow');
        if ((indent !== -1 && indent < this.indentNext && line[0] !== '#') ||
            (indent === 0 &&
                (line.startsWith('---') || line.startsWith('...')) &&
                isEmpty(line[3]))) {
            // Allowing for the terminal ] or } at the same (rather than greater)
            // indent level as the initial [ or { is technically invalid, but
            // failing here would be surprising to users.
            const atFlowEndMarker = indent === this.indentNext - 1 &&
                this.flowLevel === 1 &&
                (line[0] === ']' || line[0] === '}');
            if (!atFlowEndMarker) {
                // this is an error
                this.flowLevel = 0;
                yield cst.FLOW_END;
                return yield* this.parseLineStart();
            }
        }
        let n = 0;
        while (line[n] === ',') {
            n += yield* this.pushCount(1);
            n += yield* this.pushSpaces(true);
            this.flowKey = false;
        }
        n += yield* this.pushIndicators();
        switch (line[n]) {
            case undefined:
                return 'flow';
            case '#':
                yield* this.pushCount(line.length - n);
                return 'flow';
            case '{':
            case '[':
                yield* this.pushCount(1);
                this.flowKey = false;
                this.flowLevel += 1;
                return 'flow';
            case '}':
            case ']':
                yield* this.pushCount(1);
                this.flowKey = true;
                this.flowLevel -= 1;
                return this.flowLevel ? 'flow' : 'doc';
            case '*':
                yield* this.pushUntil(isNotAnchorChar);
                return 'flow';
            case '"':
            case "'":
                this.flowKey = true;
                return yield* this.parseQuotedScalar();
            case ':': {
                const next = this.charAt(1);
                if (this.flowKey || isEmpty(next) || next === ',') {
                    this.flowKey = false;
                    yield* this.pushCount(1);
                    yield* this.pushSpaces(true);
                    return 'flow';
                }
            }
            // fallthrough
            default:
                this.flowKey = false;
                return yield* this.parsePlainScalar();
        }
    }
    *parseQuotedScalar() {
        const quote = this.charAt(0);
        let end = this.buffer.indexOf(quote, this.pos + 1);
        if (quote === "'") {
            while (end !== -1 && this.buffer[end + 1] === "'")
                end = this.buffer.indexOf("'", end + 2);
        }
        else {
            // double-quote
            while (end !== -1) {
                let n = 0;
                while (this.buffer[end - 1 - n] === '\\')
                    n += 1;
                if (n % 2 === 0)
                    break;
                end = this.buffer.indexOf('"', end + 1);
            }
        }
        // Only looking for newlines within the quotes
        const qb = this.buffer.substring(0, end);
        let nl = qb.indexOf('\n', this.pos);
        if (nl !== -1) {
            while (nl !== -1) {
                const cs = this.continueScalar(nl + 1);
                if (cs === -1)
                    break;
                nl = qb.indexOf('\n', cs);
            }
            if (nl !== -1) {
                // this is an error caused by an unexpected unindent
                end = nl - (qb[nl - 1] === '\r' ? 2 : 1);
            }
        }
        if (end === -1) {
            if (!this.atEnd)
                return this.setNext('quoted-scalar');
            end = this.buffer.length;
        }
        yield* this.pushToIndex(end + 1, false);
        return this.flowLevel ? 'flow' : 'doc';
    }
    *parseBlockScalarHeader() {
        this.blockScalarIndent = -1;
        this.blockScalarKeep = false;
        let i = this.pos;
        while (true) {
            const ch = this.buffer[++i];
            if (ch === '+')
                this.blockScalarKeep = true;
            else if (ch > '0' && ch <= '9')
                this.blockScalarIndent = Number(ch) - 1;
            else if (ch !== '-')
                break;
        }
        return yield* this.pushUntil(ch => isEmpty(ch) || ch === '#');
    }
    *parseBlockScalar() {
        let nl = this.pos - 1; // may be -1 if this.pos === 0
        let indent = 0;
        let ch;
        loop: for (let i = this.pos; (ch = this.buffer[i]); ++i) {
            switch (ch) {
                case ' ':
                    indent += 1;
                    break;
                case '\n':
                    nl = i;
                    indent = 0;
                    break;
                case '\r': {
                    const next = this.buffer[i + 1];
                    if (!next && !this.atEnd)
                        return this.setNext('block-scalar');
                    if (next === '\n')
                        break;
                } // fallthrough
                default:
                    break loop;
            }
        }
        if (!ch && !this.atEnd)
            return this.setNext('block-scalar');
        if (indent >= this.indentNext) {
            if (this.blockScalarIndent === -1)
                this.indentNext = indent;
            else {
                this.indentNext =
                    this.blockScalarIndent + (this.indentNext === 0 ? 1 : this.indentNext);
            }
            do {
                const cs = this.continueScalar(nl + 1);
                if (cs === -1)
                    break;
                nl = this.buffer.indexOf('\n', cs);
            } while (nl !== -1);
            if (nl === -1) {
                if (!this.atEnd)
                    return this.setNext('block-scalar');
                nl = this.buffer.length;
            }
        }
        // Trailing insufficiently indented tabs are invalid.
        // To catch that during parsing, we include them in the block scalar value.
        let i = nl + 1;
        ch = this.buffer[i];
        while (ch === ' ')
            ch = this.buffer[++i];
        if (ch === '\t') {
            while (ch === '\t' || ch === ' ' || ch === '\r' || ch === '\n')
                ch = this.buffer[++i];
            nl = i - 1;
        }
        else if (!this.blockScalarKeep) {
            do {
                let i = nl - 1;
                let ch = this.buffer[i];
                if (ch === '\r')
                    ch = this.buffer[--i];
                const lastChar = i; // Drop the line if last char not more indented
                while (ch === ' ')
                    ch = this.buffer[--i];
                if (ch === '\n' && i >= this.pos && i + 1 + indent > lastChar)
                    nl = i;
                else
                    break;
            } while (true);
        }
        yield cst.SCALAR;
        yield* this.pushToIndex(nl + 1, true);
        return yield* this.parseLineStart();
    }
    *parsePlainScalar() {
        const inFlow = this.flowLevel > 0;
        let end = this.pos - 1;
        let i = this.pos - 1;
        let ch;
        while ((ch = this.buffer[++i])) {
            if (ch === ':') {
                const next = this.buffer[i + 1];
                if (isEmpty(next) || (inFlow && flowIndicatorChars.has(next)))
                    break;
                end = i;
            }
            else if (isEmpty(ch)) {
                let next = this.buffer[i + 1];
                if (ch === '\r') {
                    if (next === '\n') {
                        i += 1;
                        ch = '\n';
                        next = this.buffer[i + 1];
                    }
                    else
                        end = i;
                }
                if (next === '#' || (inFlow && flowIndicatorChars.has(next)))
                    break;
                if (ch === '\n') {
                    const cs = this.continueScalar(i + 1);
                    if (cs === -1)
                        break;
                    i = Math.max(i, cs - 2); // to advance, but still account for ' #'
                }
            }
            else {
                if (inFlow && flowIndicatorChars.has(ch))
                    break;
                end = i;
            }
        }
        if (!ch && !this.atEnd)
            return this.setNext('plain-scalar');
        yield cst.SCALAR;
        yield* this.pushToIndex(end + 1, true);
        return inFlow ? 'flow' : 'doc';
    }
    *pushCount(n) {
        if (n > 0) {
            yield this.buffer.substr(this.pos, n);
            this.pos += n;
            return n;
        }
        return 0;
    }
    *pushToIndex(i, allowEmpty) {
        const s = this.buffer.slice(this.pos, i);
        if (s) {
            yield s;
            this.pos += s.length;
            return s.length;
        }
        else if (allowEmpty)
            yield '';
        return 0;
    }
    *pushIndicators() {
        let n = 0;
        loop: while (true) {
            switch (this.charAt(0)) {
                case '!':
                    n += yield* this.pushTag();
                    n += yield* this.pushSpaces(true);
                    continue loop;
                case '&':
                    n += yield* this.pushUntil(isNotAnchorChar);
                    n += yield* this.pushSpaces(true);
                    continue loop;
                case '-': // this is an error
                case '?': // this is an error outside flow collections
                case ':': {
                    const inFlow = this.flowLevel > 0;
                    const ch1 = this.charAt(1);
                    if (isEmpty(ch1) || (inFlow && flowIndicatorChars.has(ch1))) {
                        if (!inFlow)
                            this.indentNext = this.indentValue + 1;
                        else if (this.flowKey)
                            this.flowKey = false;
                        n += yield* this.pushCount(1);
                        n += yield* this.pushSpaces(true);
                        continue loop;
                    }
                }
            }
            break loop;
        }
        return n;
    }
    *pushTag() {
        if (this.charAt(1) === '<') {
            let i = this.pos + 2;
            let ch = this.buffer[i];
            while (!isEmpty(ch) && ch !== '>')
                ch = this.buffer[++i];
            return yield* this.pushToIndex(ch === '>' ? i + 1 : i, false);
        }
        else {
            let i = this.pos + 1;
            let ch = this.buffer[i];
            while (ch) {
                if (tagChars.has(ch))
                    ch = this.buffer[++i];
                else if (ch === '%' &&
                    hexDigits.has(this.buffer[i + 1]) &&
                    hexDigits.has(this.buffer[i + 2])) {
                    ch = this.buffer[(i += 3)];
                }
                else
                    break;
            }
            return yield* this.pushToIndex(i, false);
        }
    }
    *pushNewline() {
        const ch = this.buffer[this.pos];
        if (ch === '\n')
            return yield* this.pushCount(1);
        else if (ch === '\r' && this.charAt(1) === '\n')
            return yield* this.pushCount(2);
        else
            return 0;
    }
    *pushSpaces(allowTabs) {
        let i = this.pos - 1;
        let ch;
        do {
            ch = this.buffer[++i];
        } while (ch === ' ' || (allowTabs && ch === '\t'));
        const n = i - this.pos;
        if (n > 0) {
            yield this.buffer.substr(this.pos, n);
            this.pos = i;
        }
        return n;
    }
    *pushUntil(test) {
        let i = this.pos;
        let ch = this.buffer[i];
        while (!test(ch))
            ch = this.buffer[++i];
        return yield* this.pushToIndex(i, false);
    }
}

exports.Lexer = Lexer;


/***/ }),

/***/ 6628:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Tracks newlines during parsing in order to provide an efficient API for
 * determining the one-indexed `{ line, col }` position for any offset
 * within the input.
 */
class LineCounter {
    constructor() {
        this.lineStarts = [];
        /**
         * Should be called in ascending order. Otherwise, call
         * `lineCounter.lineStarts.sort()` before calling `linePos()`.
         */
        this.addNewLine = (offset) => this.lineStarts.push(offset);
        /**
         * Performs a binary search and returns the 1-indexed { line, col }
         * position of `offset`. If `line === 0`, `addNewLine` has never been
         * called or `offset` is before the first known newline.
         */
        this.linePos = (offset) => {
            let low = 0;
            let high = this.lineStarts.length;
            while (low < high) {
                const mid = (low + high) >> 1; // Math.floor((low + high) / 2)
                if (this.lineStarts[mid] < offset)
                    low = mid + 1;
                else
                    high = mid;
            }
            if (this.lineStarts[low] === offset)
                return { line: low + 1, col: 1 };
            if (low === 0)
                return { line: 0, col: offset };
            const start = this.lineStarts[low - 1];
            return { line: low, col: offset - start + 1 };
        };
    }
}

exports.LineCounter = LineCounter;


/***/ }),

/***/ 3456:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_process = __nccwpck_require__(932);
var cst = __nccwpck_require__(3461);
var lexer = __nccwpck_require__(361);

function includesToken(list, type) {
    for (let i = 0; i < list.length; ++i)
        if (list[i].type === type)
            return true;
    return false;
}
function findNonEmptyIndex(list) {
    for (let i = 0; i < list.length; ++i) {
        switch (list[i].type) {
            case 'space':
            case 'comment':
            case 'newline':
                break;
            default:
                return i;
        }
    }
    return -1;
}
function isFlowToken(token) {
    switch (token?.type) {
        case 'alias':
        case 'scalar':
        case 'single-quoted-scalar':
        case 'double-quoted-scalar':
        case 'flow-collection':
            return true;
        default:
            return false;
    }
}
function getPrevProps(parent) {
    switch (parent.type) {
        case 'document':
            return parent.start;
        case 'block-map': {
            const it = parent.items[parent.items.length - 1];
            return it.sep ?? it.start;
        }
        case 'block-seq':
            return parent.items[parent.items.length - 1].start;
        /* istanbul ignore next should not happen */
        default:
            return [];
    }
}
/** Note: May modify input array */
function getFirstKeyStartProps(prev) {
    if (prev.length === 0)
        return [];
    let i = prev.length;
    loop: while (--i >= 0) {
        switch (prev[i].type) {
            case 'doc-start':
            case 'explicit-key-ind':
            case 'map-value-ind':
            case 'seq-item-ind':
            case 'newline':
                break loop;
        }
    }
    while (prev[++i]?.type === 'space') {
        /* loop */
    }
    return prev.splice(i, prev.length);
}
function arrayPushArray(target, source) {
    // May exhaust call stack with large `source` array
    if (source.length < 1e5)
        Array.prototype.push.apply(target, source);
    else
        for (let i = 0; i < source.length; ++i)
            target.push(source[i]);
}
function fixFlowSeqItems(fc) {
    if (fc.start.type === 'flow-seq-start') {
        for (const it of fc.items) {
            if (it.sep &&
                !it.value &&
                !includesToken(it.start, 'explicit-key-ind') &&
                !includesToken(it.sep, 'map-value-ind')) {
                if (it.key)
                    it.value = it.key;
                delete it.key;
                if (isFlowToken(it.value)) {
                    if (it.value.end)
                        arrayPushArray(it.value.end, it.sep);
                    else
                        it.value.end = it.sep;
                }
                else
                    arrayPushArray(it.start, it.sep);
                delete it.sep;
            }
        }
    }
}
/**
 * A YAML concrete syntax tree (CST) parser
 *
 * ```ts
 * const src: string = ...
 * for (const token of new Parser().parse(src)) {
 *   // token: Token
 * }
 * ```
 *
 * To use the parser with a user-provided lexer:
 *
 * ```ts
 * function* parse(source: string, lexer: Lexer) {
 *   const parser = new Parser()
 *   for (const lexeme of lexer.lex(source))
 *     yield* parser.next(lexeme)
 *   yield* parser.end()
 * }
 *
 * const src: string = ...
 * const lexer = new Lexer()
 * for (const token of parse(src, lexer)) {
 *   // token: Token
 * }
 * ```
 */
class Parser {
    /**
     * @param onNewLine - If defined, called separately with the start position of
     *   each new line (in `parse()`, including the start of input).
     */
    constructor(onNewLine) {
        /** If true, space and sequence indicators count as indentation */
        this.atNewLine = true;
        /** If true, next token is a scalar value */
        this.atScalar = false;
        /** Current indentation level */
        this.indent = 0;
        /** Current offset since the start of parsing */
        this.offset = 0;
        /** On the same line with a block map key */
        this.onKeyLine = false;
        /** Top indicates the node that's currently being built */
        this.stack = [];
        /** The source of the current token, set in parse() */
        this.source = '';
        /** The type of the current token, set in parse() */
        this.type = '';
        // Must be defined after `next()`
        this.lexer = new lexer.Lexer();
        this.onNewLine = onNewLine;
    }
    /**
     * Parse `source` as a YAML stream.
     * If `incomplete`, a part of the last line may be left as a buffer for the next call.
     *
     * Errors are not thrown, but yielded as `{ type: 'error', message }` tokens.
     *
     * @returns A generator of tokens representing each directive, document, and other structure.
     */
    *parse(source, incomplete = false) {
        if (this.onNewLine && this.offset === 0)
            this.onNewLine(0);
        for (const lexeme of this.lexer.lex(source, incomplete))
            yield* this.next(lexeme);
        if (!incomplete)
            yield* this.end();
    }
    /**
     * Advance the parser by the `source` of one lexical token.
     */
    *next(source) {
        this.source = source;
        if (node_process.env.LOG_TOKENS)
            console.log('|', cst.prettyToken(source));
        if (this.atScalar) {
            this.atScalar = false;
            yield* this.step();
            this.offset += source.length;
            return;
        }
        const type = cst.tokenType(source);
        if (!type) {
            const message = `Not a YAML token: ${source}`;
            yield* this.pop({ type: 'error', offset: this.offset, message, source });
            this.offset += source.length;
        }
        else if (type === 'scalar') {
            this.atNewLine = false;
            this.atScalar = true;
            this.type = 'scalar';
        }
        else {
            this.type = type;
            yield* this.step();
            switch (type) {
                case 'newline':
                    this.atNewLine = true;
                    this.indent = 0;
                    if (this.onNewLine)
                        this.onNewLine(this.offset + source.length);
                    break;
                case 'space':
                    if (this.atNewLine && source[0] === ' ')
                        this.indent += source.length;
                    break;
                case 'explicit-key-ind':
                case 'map-value-ind':
                case 'seq-item-ind':
                    if (this.atNewLine)
                        this.indent += source.length;
                    break;
                case 'doc-mode':
                case 'flow-error-end':
                    return;
                default:
                    this.atNewLine = false;
            }
            this.offset += source.length;
        }
    }
    /** Call at end of input to push out any remaining constructions */
    *end() {
        while (this.stack.length > 0)
            yield* this.pop();
    }
    get sourceToken() {
        const st = {
            type: this.type,
            offset: this.offset,
            indent: this.indent,
            source: this.source
        };
        return st;
    }
    *step() {
        const top = this.peek(1);
        if (this.type === 'doc-end' && top?.type !== 'doc-end') {
            while (this.stack.length > 0)
                yield* this.pop();
            this.stack.push({
                type: 'doc-end',
                offset: this.offset,
                source: this.source
            });
            return;
        }
        if (!top)
            return yield* this.stream();
        switch (top.type) {
            case 'document':
                return yield* this.document(top);
            case 'alias':
            case 'scalar':
            case 'single-quoted-scalar':
            case 'double-quoted-scalar':
                return yield* this.scalar(top);
            case 'block-scalar':
                return yield* this.blockScalar(top);
            case 'block-map':
                return yield* this.blockMap(top);
            case 'block-seq':
                return yield* this.blockSequence(top);
            case 'flow-collection':
                return yield* this.flowCollection(top);
            case 'doc-end':
                return yield* this.documentEnd(top);
        }
        /* istanbul ignore next should not happen */
        yield* this.pop();
    }
    peek(n) {
        return this.stack[this.stack.length - n];
    }
    *pop(error) {
        const token = error ?? this.stack.pop();
        /* istanbul ignore if should not happen */
        if (!token) {
            const message = 'Tried to pop an empty stack';
            yield { type: 'error', offset: this.offset, source: '', message };
        }
        else if (this.stack.length === 0) {
            yield token;
        }
        else {
            const top = this.peek(1);
            if (token.type === 'block-scalar') {
                // Block scalars use their parent rather than header indent
                token.indent = 'indent' in top ? top.indent : 0;
            }
            else if (token.type === 'flow-collection' && top.type === 'document') {
                // Ignore all indent for top-level flow collections
                token.indent = 0;
            }
            if (token.type === 'flow-collection')
                fixFlowSeqItems(token);
            switch (top.type) {
                case 'document':
                    top.value = token;
                    break;
                case 'block-scalar':
                    top.props.push(token); // error
                    break;
                case 'block-map': {
                    const it = top.items[top.items.length - 1];
                    if (it.value) {
                        top.items.push({ start: [], key: token, sep: [] });
                        this.onKeyLine = true;
                        return;
                    }
                    else if (it.sep) {
                        it.value = token;
                    }
                    else {
                        Object.assign(it, { key: token, sep: [] });
                        this.onKeyLine = !it.explicitKey;
                        return;
                    }
                    break;
                }
                case 'block-seq': {
                    const it = top.items[top.items.length - 1];
                    if (it.value)
                        top.items.push({ start: [], value: token });
                    else
                        it.value = token;
                    break;
                }
                case 'flow-collection': {
                    const it = top.items[top.items.length - 1];
                    if (!it || it.value)
                        top.items.push({ start: [], key: token, sep: [] });
                    else if (it.sep)
                        it.value = token;
                    else
                        Object.assign(it, { key: token, sep: [] });
                    return;
                }
                /* istanbul ignore next should not happen */
                default:
                    yield* this.pop();
                    yield* this.pop(token);
            }
            if ((top.type === 'document' ||
                top.type === 'block-map' ||
                top.type === 'block-seq') &&
                (token.type === 'block-map' || token.type === 'block-seq')) {
                const last = token.items[token.items.length - 1];
                if (last &&
                    !last.sep &&
                    !last.value &&
                    last.start.length > 0 &&
                    findNonEmptyIndex(last.start) === -1 &&
                    (token.indent === 0 ||
                        last.start.every(st => st.type !== 'comment' || st.indent < token.indent))) {
                    if (top.type === 'document')
                        top.end = last.start;
                    else
                        top.items.push({ start: last.start });
                    token.items.splice(-1, 1);
                }
            }
        }
    }
    *stream() {
        switch (this.type) {
            case 'directive-line':
                yield { type: 'directive', offset: this.offset, source: this.source };
                return;
            case 'byte-order-mark':
            case 'space':
            case 'comment':
            case 'newline':
                yield this.sourceToken;
                return;
            case 'doc-mode':
            case 'doc-start': {
                const doc = {
                    type: 'document',
                    offset: this.offset,
                    start: []
                };
                if (this.type === 'doc-start')
                    doc.start.push(this.sourceToken);
                this.stack.push(doc);
                return;
            }
        }
        yield {
            type: 'error',
            offset: this.offset,
            message: `Unexpected ${this.type} token in YAML stream`,
            source: this.source
        };
    }
    *document(doc) {
        if (doc.value)
            return yield* this.lineEnd(doc);
        switch (this.type) {
            case 'doc-start': {
                if (findNonEmptyIndex(doc.start) !== -1) {
                    yield* this.pop();
                    yield* this.step();
                }
                else
                    doc.start.push(this.sourceToken);
                return;
            }
            case 'anchor':
            case 'tag':
            case 'space':
            case 'comment':
            case 'newline':
                doc.start.push(this.sourceToken);
                return;
        }
        const bv = this.startBlockValue(doc);
        if (bv)
            this.stack.push(bv);
        else {
            yield {
                type: 'error',
                offset: this.offset,
                message: `Unexpected ${this.type} token in YAML document`,
                source: this.source
            };
        }
    }
    *scalar(scalar) {
        if (this.type === 'map-value-ind') {
            const prev = getPrevProps(this.peek(2));
            const start = getFirstKeyStartProps(prev);
            let sep;
            if (scalar.end) {
                sep = scalar.end;
                sep.push(this.sourceToken);
                delete scalar.end;
            }
            else
                sep = [this.sourceToken];
            const map = {
                type: 'block-map',
                offset: scalar.offset,
                indent: scalar.indent,
                items: [{ start, key: scalar, sep }]
            };
            this.onKeyLine = true;
            this.stack[this.stack.length - 1] = map;
        }
        else
            yield* this.lineEnd(scalar);
    }
    *blockScalar(scalar) {
        switch (this.type) {
            case 'space':
            case 'comment':
            case 'newline':
                scalar.props.push(this.sourceToken);
                return;
            case 'scalar':
                scalar.source = this.source;
                // block-scalar source includes trailing newline
                this.atNewLine = true;
                this.indent = 0;
                if (this.onNewLine) {
                    let nl = this.source.indexOf('\n') + 1;
                    while (nl !== 0) {
                        this.onNewLine(this.offset + nl);
                        nl = this.source.indexOf('\n', nl) + 1;
                    }
                }
                yield* this.pop();
                break;
            /* istanbul ignore next should not happen */
            default:
                yield* this.pop();
                yield* this.step();
        }
    }
    *blockMap(map) {
        const it = map.items[map.items.length - 1];
        // it.sep is true-ish if pair already has key or : separator
        switch (this.type) {
            case 'newline':
                this.onKeyLine = false;
                if (it.value) {
                    const end = 'end' in it.value ? it.value.end : undefined;
                    const last = Array.isArray(end) ? end[end.length - 1] : undefined;
                    if (last?.type === 'comment')
                        end?.push(this.sourceToken);
                    else
                        map.items.push({ start: [this.sourceToken] });
                }
                else if (it.sep) {
                    it.sep.push(this.sourceToken);
                }
                else {
                    it.start.push(this.sourceToken);
                }
                return;
            case 'space':
            case 'comment':
                if (it.value) {
                    map.items.push({ start: [this.sourceToken] });
                }
                else if (it.sep) {
                    it.sep.push(this.sourceToken);
                }
                else {
                    if (this.atIndentedComment(it.start, map.indent)) {
                        const prev = map.items[map.items.length - 2];
                        const end = prev?.value?.end;
                        if (Array.isArray(end)) {
                            arrayPushArray(end, it.start);
                            end.push(this.sourceToken);
                            map.items.pop();
                            return;
                        }
                    }
                    it.start.push(this.sourceToken);
                }
                return;
        }
        if (this.indent >= map.indent) {
            const atMapIndent = !this.onKeyLine && this.indent === map.indent;
            const atNextItem = atMapIndent &&
                (it.sep || it.explicitKey) &&
                this.type !== 'seq-item-ind';
            // For empty nodes, assign newline-separated not indented empty tokens to following node
            let start = [];
            if (atNextItem && it.sep && !it.value) {
                const nl = [];
                for (let i = 0; i < it.sep.length; ++i) {
                    const st = it.sep[i];
                    switch (st.type) {
                        case 'newline':
                            nl.push(i);
                            break;
                        case 'space':
                            break;
                        case 'comment':
                            if (st.indent > map.indent)
                                nl.length = 0;
                            break;
                        default:
                            nl.length = 0;
                    }
                }
                if (nl.length >= 2)
                    start = it.sep.splice(nl[1]);
            }
            switch (this.type) {
                case 'anchor':
                case 'tag':
                    if (atNextItem || it.value) {
                        start.push(this.sourceToken);
                        map.items.push({ start });
                        this.onKeyLine = true;
                    }
                    else if (it.sep) {
                        it.sep.push(this.sourceToken);
                    }
                    else {
                        it.start.push(this.sourceToken);
                    }
                    return;
                case 'explicit-key-ind':
                    if (!it.sep && !it.explicitKey) {
                        it.start.push(this.sourceToken);
                        it.explicitKey = true;
                    }
                    else if (atNextItem || it.value) {
                        start.push(this.sourceToken);
                        map.items.push({ start, explicitKey: true });
                    }
                    else {
                        this.stack.push({
                            type: 'block-map',
                            offset: this.offset,
                            indent: this.indent,
                            items: [{ start: [this.sourceToken], explicitKey: true }]
                        });
                    }
                    this.onKeyLine = true;
                    return;
                case 'map-value-ind':
                    if (it.explicitKey) {
                        if (!it.sep) {
                            if (includesToken(it.start, 'newline')) {
                                Object.assign(it, { key: null, sep: [this.sourceToken] });
                            }
                            else {
                                const start = getFirstKeyStartProps(it.start);
                                this.stack.push({
                                    type: 'block-map',
                                    offset: this.offset,
                                    indent: this.indent,
                                    items: [{ start, key: null, sep: [this.sourceToken] }]
                                });
                            }
                        }
                        else if (it.value) {
                            map.items.push({ start: [], key: null, sep: [this.sourceToken] });
                        }
                        else if (includesToken(it.sep, 'map-value-ind')) {
                            this.stack.push({
                                type: 'block-map',
                                offset: this.offset,
                                indent: this.indent,
                                items: [{ start, key: null, sep: [this.sourceToken] }]
                            });
                        }
                        else if (isFlowToken(it.key) &&
                            !includesToken(it.sep, 'newline')) {
                            const start = getFirstKeyStartProps(it.start);
                            const key = it.key;
                            const sep = it.sep;
                            sep.push(this.sourceToken);
                            // @ts-expect-error type guard is wrong here
                            delete it.key;
                            // @ts-expect-error type guard is wrong here
                            delete it.sep;
                            this.stack.push({
                                type: 'block-map',
                                offset: this.offset,
                                indent: this.indent,
                                items: [{ start, key, sep }]
                            });
                        }
                        else if (start.length > 0) {
                            // Not actually at next item
                            it.sep = it.sep.concat(start, this.sourceToken);
                        }
                        else {
                            it.sep.push(this.sourceToken);
                        }
                    }
                    else {
                        if (!it.sep) {
                            Object.assign(it, { key: null, sep: [this.sourceToken] });
                        }
                        else if (it.value || atNextItem) {
                            map.items.push({ start, key: null, sep: [this.sourceToken] });
                        }
                        else if (includesToken(it.sep, 'map-value-ind')) {
                            this.stack.push({
                                type: 'block-map',
                                offset: this.offset,
                                indent: this.indent,
                                items: [{ start: [], key: null, sep: [this.sourceToken] }]
                            });
                        }
                        else {
                            it.sep.push(this.sourceToken);
                        }
                    }
                    this.onKeyLine = true;
                    return;
                case 'alias':
                case 'scalar':
                case 'single-quoted-scalar':
                case 'double-quoted-scalar': {
                    const fs = this.flowScalar(this.type);
                    if (atNextItem || it.value) {
                        map.items.push({ start, key: fs, sep: [] });
                        this.onKeyLine = true;
                    }
                    else if (it.sep) {
                        this.stack.push(fs);
                    }
                    else {
                        Object.assign(it, { key: fs, sep: [] });
                        this.onKeyLine = true;
                    }
                    return;
                }
                default: {
                    const bv = this.startBlockValue(map);
                    if (bv) {
                        if (bv.type === 'block-seq') {
                            if (!it.explicitKey &&
                                it.sep &&
                                !includesToken(it.sep, 'newline')) {
                                yield* this.pop({
                                    type: 'error',
                                    offset: this.offset,
                                    message: 'Unexpected block-seq-ind on same line with key',
                                    source: this.source
                                });
                                return;
                            }
                        }
                        else if (atMapIndent) {
                            map.items.push({ start });
                        }
                        this.stack.push(bv);
                        return;
                    }
                }
            }
        }
        yield* this.pop();
        yield* this.step();
    }
    *blockSequence(seq) {
        const it = seq.items[seq.items.length - 1];
        switch (this.type) {
            case 'newline':
                if (it.value) {
                    const end = 'end' in it.value ? it.value.end : undefined;
                    const last = Array.isArray(end) ? end[end.length - 1] : undefined;
                    if (last?.type === 'comment')
                        end?.push(this.sourceToken);
                    else
                        seq.items.push({ start: [this.sourceToken] });
                }
                else
                    it.start.push(this.sourceToken);
                return;
            case 'space':
            case 'comment':
                if (it.value)
                    seq.items.push({ start: [this.sourceToken] });
                else {
                    if (this.atIndentedComment(it.start, seq.indent)) {
                        const prev = seq.items[seq.items.length - 2];
                        const end = prev?.value?.end;
                        if (Array.isArray(end)) {
                            arrayPushArray(end, it.start);
                            end.push(this.sourceToken);
                            seq.items.pop();
                            return;
                        }
                    }
                    it.start.push(this.sourceToken);
                }
                return;
            case 'anchor':
            case 'tag':
                if (it.value || this.indent <= seq.indent)
                    break;
                it.start.push(this.sourceToken);
                return;
            case 'seq-item-ind':
                if (this.indent !== seq.indent)
                    break;
                if (it.value || includesToken(it.start, 'seq-item-ind'))
                    seq.items.push({ start: [this.sourceToken] });
                else
                    it.start.push(this.sourceToken);
                return;
        }
        if (this.indent > seq.indent) {
            const bv = this.startBlockValue(seq);
            if (bv) {
                this.stack.push(bv);
                return;
            }
        }
        yield* this.pop();
        yield* this.step();
    }
    *flowCollection(fc) {
        const it = fc.items[fc.items.length - 1];
        if (this.type === 'flow-error-end') {
            let top;
            do {
                yield* this.pop();
                top = this.peek(1);
            } while (top?.type === 'flow-collection');
        }
        else if (fc.end.length === 0) {
            switch (this.type) {
                case 'comma':
                case 'explicit-key-ind':
                    if (!it || it.sep)
                        fc.items.push({ start: [this.sourceToken] });
                    else
                        it.start.push(this.sourceToken);
                    return;
                case 'map-value-ind':
                    if (!it || it.value)
                        fc.items.push({ start: [], key: null, sep: [this.sourceToken] });
                    else if (it.sep)
                        it.sep.push(this.sourceToken);
                    else
                        Object.assign(it, { key: null, sep: [this.sourceToken] });
                    return;
                case 'space':
                case 'comment':
                case 'newline':
                case 'anchor':
                case 'tag':
                    if (!it || it.value)
                        fc.items.push({ start: [this.sourceToken] });
                    else if (it.sep)
                        it.sep.push(this.sourceToken);
                    else
                        it.start.push(this.sourceToken);
                    return;
                case 'alias':
                case 'scalar':
                case 'single-quoted-scalar':
                case 'double-quoted-scalar': {
                    const fs = this.flowScalar(this.type);
                    if (!it || it.value)
                        fc.items.push({ start: [], key: fs, sep: [] });
                    else if (it.sep)
                        this.stack.push(fs);
                    else
                        Object.assign(it, { key: fs, sep: [] });
                    return;
                }
                case 'flow-map-end':
                case 'flow-seq-end':
                    fc.end.push(this.sourceToken);
                    return;
            }
            const bv = this.startBlockValue(fc);
            /* istanbul ignore else should not happen */
            if (bv)
                this.stack.push(bv);
            else {
                yield* this.pop();
                yield* this.step();
            }
        }
        else {
            const parent = this.peek(2);
            if (parent.type === 'block-map' &&
                ((this.type === 'map-value-ind' && parent.indent === fc.indent) ||
                    (this.type === 'newline' &&
                        !parent.items[parent.items.length - 1].sep))) {
                yield* this.pop();
                yield* this.step();
            }
            else if (this.type === 'map-value-ind' &&
                parent.type !== 'flow-collection') {
                const prev = getPrevProps(parent);
                const start = getFirstKeyStartProps(prev);
                fixFlowSeqItems(fc);
                const sep = fc.end.splice(1, fc.end.length);
                sep.push(this.sourceToken);
                const map = {
                    type: 'block-map',
                    offset: fc.offset,
                    indent: fc.indent,
                    items: [{ start, key: fc, sep }]
                };
                this.onKeyLine = true;
                this.stack[this.stack.length - 1] = map;
            }
            else {
                yield* this.lineEnd(fc);
            }
        }
    }
    flowScalar(type) {
        if (this.onNewLine) {
            let nl = this.source.indexOf('\n') + 1;
            while (nl !== 0) {
                this.onNewLine(this.offset + nl);
                nl = this.source.indexOf('\n', nl) + 1;
            }
        }
        return {
            type,
            offset: this.offset,
            indent: this.indent,
            source: this.source
        };
    }
    startBlockValue(parent) {
        switch (this.type) {
            case 'alias':
            case 'scalar':
            case 'single-quoted-scalar':
            case 'double-quoted-scalar':
                return this.flowScalar(this.type);
            case 'block-scalar-header':
                return {
                    type: 'block-scalar',
                    offset: this.offset,
                    indent: this.indent,
                    props: [this.sourceToken],
                    source: ''
                };
            case 'flow-map-start':
            case 'flow-seq-start':
                return {
                    type: 'flow-collection',
                    offset: this.offset,
                    indent: this.indent,
                    start: this.sourceToken,
                    items: [],
                    end: []
                };
            case 'seq-item-ind':
                return {
                    type: 'block-seq',
                    offset: this.offset,
                    indent: this.indent,
                    items: [{ start: [this.sourceToken] }]
                };
            case 'explicit-key-ind': {
                this.onKeyLine = true;
                const prev = getPrevProps(parent);
                const start = getFirstKeyStartProps(prev);
                start.push(this.sourceToken);
                return {
                    type: 'block-map',
                    offset: this.offset,
                    indent: this.indent,
                    items: [{ start, explicitKey: true }]
                };
            }
            case 'map-value-ind': {
                this.onKeyLine = true;
                const prev = getPrevProps(parent);
                const start = getFirstKeyStartProps(prev);
                return {
                    type: 'block-map',
                    offset: this.offset,
                    indent: this.indent,
                    items: [{ start, key: null, sep: [this.sourceToken] }]
                };
            }
        }
        return null;
    }
    atIndentedComment(start, indent) {
        if (this.type !== 'comment')
            return false;
        if (this.indent <= indent)
            return false;
        return start.every(st => st.type === 'newline' || st.type === 'space');
    }
    *documentEnd(docEnd) {
        if (this.type !== 'doc-mode') {
            if (docEnd.end)
                docEnd.end.push(this.sourceToken);
            else
                docEnd.end = [this.sourceToken];
            if (this.type === 'newline')
                yield* this.pop();
        }
    }
    *lineEnd(token) {
        switch (this.type) {
            case 'comma':
            case 'doc-start':
            case 'doc-end':
            case 'flow-seq-end':
            case 'flow-map-end':
            case 'map-value-ind':
                yield* this.pop();
                yield* this.step();
                break;
            case 'newline':
                this.onKeyLine = false;
            // fallthrough
            case 'space':
            case 'comment':
            default:
                // all other values are errors
                if (token.end)
                    token.end.push(this.sourceToken);
                else
                    token.end = [this.sourceToken];
                if (this.type === 'newline')
                    yield* this.pop();
        }
    }
}

exports.Parser = Parser;


/***/ }),

/***/ 4047:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var composer = __nccwpck_require__(9984);
var Document = __nccwpck_require__(3021);
var errors = __nccwpck_require__(1464);
var log = __nccwpck_require__(7249);
var identity = __nccwpck_require__(1127);
var lineCounter = __nccwpck_require__(6628);
var parser = __nccwpck_require__(3456);

function parseOptions(options) {
    const prettyErrors = options.prettyErrors !== false;
    const lineCounter$1 = options.lineCounter || (prettyErrors && new lineCounter.LineCounter()) || null;
    return { lineCounter: lineCounter$1, prettyErrors };
}
/**
 * Parse the input as a stream of YAML documents.
 *
 * Documents should be separated from each other by `...` or `---` marker lines.
 *
 * @returns If an empty `docs` array is returned, it will be of type
 *   EmptyStream and contain additional stream information. In
 *   TypeScript, you should use `'empty' in docs` as a type guard for it.
 */
function parseAllDocuments(source, options = {}) {
    const { lineCounter, prettyErrors } = parseOptions(options);
    const parser$1 = new parser.Parser(lineCounter?.addNewLine);
    const composer$1 = new composer.Composer(options);
    const docs = Array.from(composer$1.compose(parser$1.parse(source)));
    if (prettyErrors && lineCounter)
        for (const doc of docs) {
            doc.errors.forEach(errors.prettifyError(source, lineCounter));
            doc.warnings.forEach(errors.prettifyError(source, lineCounter));
        }
    if (docs.length > 0)
        return docs;
    return Object.assign([], { empty: true }, composer$1.streamInfo());
}
/** Parse an input string into a single YAML.Document */
function parseDocument(source, options = {}) {
    const { lineCounter, prettyErrors } = parseOptions(options);
    const parser$1 = new parser.Parser(lineCounter?.addNewLine);
    const composer$1 = new composer.Composer(options);
    // `doc` is always set by compose.end(true) at the very latest
    let doc = null;
    for (const _doc of composer$1.compose(parser$1.parse(source), true, source.length)) {
        if (!doc)
            doc = _doc;
        else if (doc.options.logLevel !== 'silent') {
            doc.errors.push(new errors.YAMLParseError(_doc.range.slice(0, 2), 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
            break;
        }
    }
    if (prettyErrors && lineCounter) {
        doc.errors.forEach(errors.prettifyError(source, lineCounter));
        doc.warnings.forEach(errors.prettifyError(source, lineCounter));
    }
    return doc;
}
function parse(src, reviver, options) {
    let _reviver = undefined;
    if (typeof reviver === 'function') {
        _reviver = reviver;
    }
    else if (options === undefined && reviver && typeof reviver === 'object') {
        options = reviver;
    }
    const doc = parseDocument(src, options);
    if (!doc)
        return null;
    doc.warnings.forEach(warning => log.warn(doc.options.logLevel, warning));
    if (doc.errors.length > 0) {
        if (doc.options.logLevel !== 'silent')
            throw doc.errors[0];
        else
            doc.errors = [];
    }
    return doc.toJS(Object.assign({ reviver: _reviver }, options));
}
function stringify(value, replacer, options) {
    let _replacer = null;
    if (typeof replacer === 'function' || Array.isArray(replacer)) {
        _replacer = replacer;
    }
    else if (options === undefined && replacer) {
        options = replacer;
    }
    if (typeof options === 'string')
        options = options.length;
    if (typeof options === 'number') {
        const indent = Math.round(options);
        options = indent < 1 ? undefined : indent > 8 ? { indent: 8 } : { indent };
    }
    if (value === undefined) {
        const { keepUndefined } = options ?? replacer ?? {};
        if (!keepUndefined)
            return undefined;
    }
    if (identity.isDocument(value) && !_replacer)
        return value.toString(options);
    return new Document.Document(value, _replacer, options).toString(options);
}

exports.parse = parse;
exports.parseAllDocuments = parseAllDocuments;
exports.parseDocument = parseDocument;
exports.stringify = stringify;


/***/ }),

/***/ 5840:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var map = __nccwpck_require__(7451);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var tags = __nccwpck_require__(18);

const sortMapEntriesByKey = (a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
class Schema {
    constructor({ compat, customTags, merge, resolveKnownTags, schema, sortMapEntries, toStringDefaults }) {
        this.compat = Array.isArray(compat)
            ? tags.getTags(compat, 'compat')
            : compat
                ? tags.getTags(null, compat)
                : null;
        this.name = (typeof schema === 'string' && schema) || 'core';
        this.knownTags = resolveKnownTags ? tags.coreKnownTags : {};
        this.tags = tags.getTags(customTags, this.name, merge);
        this.toStringOptions = toStringDefaults ?? null;
        Object.defineProperty(this, identity.MAP, { value: map.map });
        Object.defineProperty(this, identity.SCALAR, { value: string.string });
        Object.defineProperty(this, identity.SEQ, { value: seq.seq });
        // Used by createMap()
        this.sortMapEntries =
            typeof sortMapEntries === 'function'
                ? sortMapEntries
                : sortMapEntries === true
                    ? sortMapEntriesByKey
                    : null;
    }
    clone() {
        const copy = Object.create(Schema.prototype, Object.getOwnPropertyDescriptors(this));
        copy.tags = this.tags.slice();
        return copy;
    }
}

exports.Schema = Schema;


/***/ }),

/***/ 7451:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var YAMLMap = __nccwpck_require__(4454);

const map = {
    collection: 'map',
    default: true,
    nodeClass: YAMLMap.YAMLMap,
    tag: 'tag:yaml.org,2002:map',
    resolve(map, onError) {
        if (!identity.isMap(map))
            onError('Expected a mapping for this tag');
        return map;
    },
    createNode: (schema, obj, ctx) => YAMLMap.YAMLMap.from(schema, obj, ctx)
};

exports.map = map;


/***/ }),

/***/ 3632:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

const nullTag = {
    identify: value => value == null,
    createNode: () => new Scalar.Scalar(null),
    default: true,
    tag: 'tag:yaml.org,2002:null',
    test: /^(?:~|[Nn]ull|NULL)?$/,
    resolve: () => new Scalar.Scalar(null),
    stringify: ({ source }, ctx) => typeof source === 'string' && nullTag.test.test(source)
        ? source
        : ctx.options.nullStr
};

exports.nullTag = nullTag;


/***/ }),

/***/ 1706:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var YAMLSeq = __nccwpck_require__(2223);

const seq = {
    collection: 'seq',
    default: true,
    nodeClass: YAMLSeq.YAMLSeq,
    tag: 'tag:yaml.org,2002:seq',
    resolve(seq, onError) {
        if (!identity.isSeq(seq))
            onError('Expected a sequence for this tag');
        return seq;
    },
    createNode: (schema, obj, ctx) => YAMLSeq.YAMLSeq.from(schema, obj, ctx)
};

exports.seq = seq;


/***/ }),

/***/ 6464:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyString = __nccwpck_require__(3069);

const string = {
    identify: value => typeof value === 'string',
    default: true,
    tag: 'tag:yaml.org,2002:str',
    resolve: str => str,
    stringify(item, ctx, onComment, onChompKeep) {
        ctx = Object.assign({ actualString: true }, ctx);
        return stringifyString.stringifyString(item, ctx, onComment, onChompKeep);
    }
};

exports.string = string;


/***/ }),

/***/ 3959:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

const boolTag = {
    identify: value => typeof value === 'boolean',
    default: true,
    tag: 'tag:yaml.org,2002:bool',
    test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
    resolve: str => new Scalar.Scalar(str[0] === 't' || str[0] === 'T'),
    stringify({ source, value }, ctx) {
        if (source && boolTag.test.test(source)) {
            const sv = source[0] === 't' || source[0] === 'T';
            if (value === sv)
                return source;
        }
        return value ? ctx.options.trueStr : ctx.options.falseStr;
    }
};

exports.boolTag = boolTag;


/***/ }),

/***/ 8405:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var stringifyNumber = __nccwpck_require__(8689);

const floatNaN = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: str => str.slice(-3).toLowerCase() === 'nan'
        ? NaN
        : str[0] === '-'
            ? Number.NEGATIVE_INFINITY
            : Number.POSITIVE_INFINITY,
    stringify: stringifyNumber.stringifyNumber
};
const floatExp = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    format: 'EXP',
    test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
    resolve: str => parseFloat(str),
    stringify(node) {
        const num = Number(node.value);
        return isFinite(num) ? num.toExponential() : stringifyNumber.stringifyNumber(node);
    }
};
const float = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
    resolve(str) {
        const node = new Scalar.Scalar(parseFloat(str));
        const dot = str.indexOf('.');
        if (dot !== -1 && str[str.length - 1] === '0')
            node.minFractionDigits = str.length - dot - 1;
        return node;
    },
    stringify: stringifyNumber.stringifyNumber
};

exports.float = float;
exports.floatExp = floatExp;
exports.floatNaN = floatNaN;


/***/ }),

/***/ 9874:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyNumber = __nccwpck_require__(8689);

const intIdentify = (value) => typeof value === 'bigint' || Number.isInteger(value);
const intResolve = (str, offset, radix, { intAsBigInt }) => (intAsBigInt ? BigInt(str) : parseInt(str.substring(offset), radix));
function intStringify(node, radix, prefix) {
    const { value } = node;
    if (intIdentify(value) && value >= 0)
        return prefix + value.toString(radix);
    return stringifyNumber.stringifyNumber(node);
}
const intOct = {
    identify: value => intIdentify(value) && value >= 0,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'OCT',
    test: /^0o[0-7]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 8, opt),
    stringify: node => intStringify(node, 8, '0o')
};
const int = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    test: /^[-+]?[0-9]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 0, 10, opt),
    stringify: stringifyNumber.stringifyNumber
};
const intHex = {
    identify: value => intIdentify(value) && value >= 0,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'HEX',
    test: /^0x[0-9a-fA-F]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 16, opt),
    stringify: node => intStringify(node, 16, '0x')
};

exports.int = int;
exports.intHex = intHex;
exports.intOct = intOct;


/***/ }),

/***/ 896:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var map = __nccwpck_require__(7451);
var _null = __nccwpck_require__(3632);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var bool = __nccwpck_require__(3959);
var float = __nccwpck_require__(8405);
var int = __nccwpck_require__(9874);

const schema = [
    map.map,
    seq.seq,
    string.string,
    _null.nullTag,
    bool.boolTag,
    int.intOct,
    int.int,
    int.intHex,
    float.floatNaN,
    float.floatExp,
    float.float
];

exports.schema = schema;


/***/ }),

/***/ 3559:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var map = __nccwpck_require__(7451);
var seq = __nccwpck_require__(1706);

function intIdentify(value) {
    return typeof value === 'bigint' || Number.isInteger(value);
}
const stringifyJSON = ({ value }) => JSON.stringify(value);
const jsonScalars = [
    {
        identify: value => typeof value === 'string',
        default: true,
        tag: 'tag:yaml.org,2002:str',
        resolve: str => str,
        stringify: stringifyJSON
    },
    {
        identify: value => value == null,
        createNode: () => new Scalar.Scalar(null),
        default: true,
        tag: 'tag:yaml.org,2002:null',
        test: /^null$/,
        resolve: () => null,
        stringify: stringifyJSON
    },
    {
        identify: value => typeof value === 'boolean',
        default: true,
        tag: 'tag:yaml.org,2002:bool',
        test: /^true$|^false$/,
        resolve: str => str === 'true',
        stringify: stringifyJSON
    },
    {
        identify: intIdentify,
        default: true,
        tag: 'tag:yaml.org,2002:int',
        test: /^-?(?:0|[1-9][0-9]*)$/,
        resolve: (str, _onError, { intAsBigInt }) => intAsBigInt ? BigInt(str) : parseInt(str, 10),
        stringify: ({ value }) => intIdentify(value) ? value.toString() : JSON.stringify(value)
    },
    {
        identify: value => typeof value === 'number',
        default: true,
        tag: 'tag:yaml.org,2002:float',
        test: /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?$/,
        resolve: str => parseFloat(str),
        stringify: stringifyJSON
    }
];
const jsonError = {
    default: true,
    tag: '',
    test: /^/,
    resolve(str, onError) {
        onError(`Unresolved plain scalar ${JSON.stringify(str)}`);
        return str;
    }
};
const schema = [map.map, seq.seq].concat(jsonScalars, jsonError);

exports.schema = schema;


/***/ }),

/***/ 18:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var map = __nccwpck_require__(7451);
var _null = __nccwpck_require__(3632);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var bool = __nccwpck_require__(3959);
var float = __nccwpck_require__(8405);
var int = __nccwpck_require__(9874);
var schema = __nccwpck_require__(896);
var schema$1 = __nccwpck_require__(3559);
var binary = __nccwpck_require__(6083);
var merge = __nccwpck_require__(452);
var omap = __nccwpck_require__(303);
var pairs = __nccwpck_require__(8385);
var schema$2 = __nccwpck_require__(5913);
var set = __nccwpck_require__(1528);
var timestamp = __nccwpck_require__(6752);

const schemas = new Map([
    ['core', schema.schema],
    ['failsafe', [map.map, seq.seq, string.string]],
    ['json', schema$1.schema],
    ['yaml11', schema$2.schema],
    ['yaml-1.1', schema$2.schema]
]);
const tagsByName = {
    binary: binary.binary,
    bool: bool.boolTag,
    float: float.float,
    floatExp: float.floatExp,
    floatNaN: float.floatNaN,
    floatTime: timestamp.floatTime,
    int: int.int,
    intHex: int.intHex,
    intOct: int.intOct,
    intTime: timestamp.intTime,
    map: map.map,
    merge: merge.merge,
    null: _null.nullTag,
    omap: omap.omap,
    pairs: pairs.pairs,
    seq: seq.seq,
    set: set.set,
    timestamp: timestamp.timestamp
};
const coreKnownTags = {
    'tag:yaml.org,2002:binary': binary.binary,
    'tag:yaml.org,2002:merge': merge.merge,
    'tag:yaml.org,2002:omap': omap.omap,
    'tag:yaml.org,2002:pairs': pairs.pairs,
    'tag:yaml.org,2002:set': set.set,
    'tag:yaml.org,2002:timestamp': timestamp.timestamp
};
function getTags(customTags, schemaName, addMergeTag) {
    const schemaTags = schemas.get(schemaName);
    if (schemaTags && !customTags) {
        return addMergeTag && !schemaTags.includes(merge.merge)
            ? schemaTags.concat(merge.merge)
            : schemaTags.slice();
    }
    let tags = schemaTags;
    if (!tags) {
        if (Array.isArray(customTags))
            tags = [];
        else {
            const keys = Array.from(schemas.keys())
                .filter(key => key !== 'yaml11')
                .map(key => JSON.stringify(key))
                .join(', ');
            throw new Error(`Unknown schema "${schemaName}"; use one of ${keys} or define customTags array`);
        }
    }
    if (Array.isArray(customTags)) {
        for (const tag of customTags)
            tags = tags.concat(tag);
    }
    else if (typeof customTags === 'function') {
        tags = customTags(tags.slice());
    }
    if (addMergeTag)
        tags = tags.concat(merge.merge);
    return tags.reduce((tags, tag) => {
        const tagObj = typeof tag === 'string' ? tagsByName[tag] : tag;
        if (!tagObj) {
            const tagName = JSON.stringify(tag);
            const keys = Object.keys(tagsByName)
                .map(key => JSON.stringify(key))
                .join(', ');
            throw new Error(`Unknown custom tag ${tagName}; use one of ${keys}`);
        }
        if (!tags.includes(tagObj))
            tags.push(tagObj);
        return tags;
    }, []);
}

exports.coreKnownTags = coreKnownTags;
exports.getTags = getTags;


/***/ }),

/***/ 6083:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var node_buffer = __nccwpck_require__(181);
var Scalar = __nccwpck_require__(3301);
var stringifyString = __nccwpck_require__(3069);

const binary = {
    identify: value => value instanceof Uint8Array, // Buffer inherits from Uint8Array
    default: false,
    tag: 'tag:yaml.org,2002:binary',
    /**
     * Returns a Buffer in node and an Uint8Array in browsers
     *
     * To use the resulting buffer as an image, you'll want to do something like:
     *
     *   const blob = new Blob([buffer], { type: 'image/jpeg' })
     *   document.querySelector('#photo').src = URL.createObjectURL(blob)
     */
    resolve(src, onError) {
        if (typeof node_buffer.Buffer === 'function') {
            return node_buffer.Buffer.from(src, 'base64');
        }
        else if (typeof atob === 'function') {
            // On IE 11, atob() can't handle newlines
            const str = atob(src.replace(/[\n\r]/g, ''));
            const buffer = new Uint8Array(str.length);
            for (let i = 0; i < str.length; ++i)
                buffer[i] = str.charCodeAt(i);
            return buffer;
        }
        else {
            onError('This environment does not support reading binary tags; either Buffer or atob is required');
            return src;
        }
    },
    stringify({ comment, type, value }, ctx, onComment, onChompKeep) {
        if (!value)
            return '';
        const buf = value; // checked earlier by binary.identify()
        let str;
        if (typeof node_buffer.Buffer === 'function') {
            str =
                buf instanceof node_buffer.Buffer
                    ? buf.toString('base64')
                    : node_buffer.Buffer.from(buf.buffer).toString('base64');
        }
        else if (typeof btoa === 'function') {
            let s = '';
            for (let i = 0; i < buf.length; ++i)
                s += String.fromCharCode(buf[i]);
            str = btoa(s);
        }
        else {
            throw new Error('This environment does not support writing binary tags; either Buffer or btoa is required');
        }
        type ?? (type = Scalar.Scalar.BLOCK_LITERAL);
        if (type !== Scalar.Scalar.QUOTE_DOUBLE) {
            const lineWidth = Math.max(ctx.options.lineWidth - ctx.indent.length, ctx.options.minContentWidth);
            const n = Math.ceil(str.length / lineWidth);
            const lines = new Array(n);
            for (let i = 0, o = 0; i < n; ++i, o += lineWidth) {
                lines[i] = str.substr(o, lineWidth);
            }
            str = lines.join(type === Scalar.Scalar.BLOCK_LITERAL ? '\n' : ' ');
        }
        return stringifyString.stringifyString({ comment, type, value: str }, ctx, onComment, onChompKeep);
    }
};

exports.binary = binary;


/***/ }),

/***/ 8398:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);

function boolStringify({ value, source }, ctx) {
    const boolObj = value ? trueTag : falseTag;
    if (source && boolObj.test.test(source))
        return source;
    return value ? ctx.options.trueStr : ctx.options.falseStr;
}
const trueTag = {
    identify: value => value === true,
    default: true,
    tag: 'tag:yaml.org,2002:bool',
    test: /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/,
    resolve: () => new Scalar.Scalar(true),
    stringify: boolStringify
};
const falseTag = {
    identify: value => value === false,
    default: true,
    tag: 'tag:yaml.org,2002:bool',
    test: /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
    resolve: () => new Scalar.Scalar(false),
    stringify: boolStringify
};

exports.falseTag = falseTag;
exports.trueTag = trueTag;


/***/ }),

/***/ 5782:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var stringifyNumber = __nccwpck_require__(8689);

const floatNaN = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: (str) => str.slice(-3).toLowerCase() === 'nan'
        ? NaN
        : str[0] === '-'
            ? Number.NEGATIVE_INFINITY
            : Number.POSITIVE_INFINITY,
    stringify: stringifyNumber.stringifyNumber
};
const floatExp = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    format: 'EXP',
    test: /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$/,
    resolve: (str) => parseFloat(str.replace(/_/g, '')),
    stringify(node) {
        const num = Number(node.value);
        return isFinite(num) ? num.toExponential() : stringifyNumber.stringifyNumber(node);
    }
};
const float = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    test: /^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/,
    resolve(str) {
        const node = new Scalar.Scalar(parseFloat(str.replace(/_/g, '')));
        const dot = str.indexOf('.');
        if (dot !== -1) {
            const f = str.substring(dot + 1).replace(/_/g, '');
            if (f[f.length - 1] === '0')
                node.minFractionDigits = f.length;
        }
        return node;
    },
    stringify: stringifyNumber.stringifyNumber
};

exports.float = float;
exports.floatExp = floatExp;
exports.floatNaN = floatNaN;


/***/ }),

/***/ 873:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyNumber = __nccwpck_require__(8689);

const intIdentify = (value) => typeof value === 'bigint' || Number.isInteger(value);
function intResolve(str, offset, radix, { intAsBigInt }) {
    const sign = str[0];
    if (sign === '-' || sign === '+')
        offset += 1;
    str = str.substring(offset).replace(/_/g, '');
    if (intAsBigInt) {
        switch (radix) {
            case 2:
                str = `0b${str}`;
                break;
            case 8:
                str = `0o${str}`;
                break;
            case 16:
                str = `0x${str}`;
                break;
        }
        const n = BigInt(str);
        return sign === '-' ? BigInt(-1) * n : n;
    }
    const n = parseInt(str, radix);
    return sign === '-' ? -1 * n : n;
}
function intStringify(node, radix, prefix) {
    const { value } = node;
    if (intIdentify(value)) {
        const str = value.toString(radix);
        return value < 0 ? '-' + prefix + str.substr(1) : prefix + str;
    }
    return stringifyNumber.stringifyNumber(node);
}
const intBin = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'BIN',
    test: /^[-+]?0b[0-1_]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 2, opt),
    stringify: node => intStringify(node, 2, '0b')
};
const intOct = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'OCT',
    test: /^[-+]?0[0-7_]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 1, 8, opt),
    stringify: node => intStringify(node, 8, '0')
};
const int = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    test: /^[-+]?[0-9][0-9_]*$/,
    resolve: (str, _onError, opt) => intResolve(str, 0, 10, opt),
    stringify: stringifyNumber.stringifyNumber
};
const intHex = {
    identify: intIdentify,
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'HEX',
    test: /^[-+]?0x[0-9a-fA-F_]+$/,
    resolve: (str, _onError, opt) => intResolve(str, 2, 16, opt),
    stringify: node => intStringify(node, 16, '0x')
};

exports.int = int;
exports.intBin = intBin;
exports.intHex = intHex;
exports.intOct = intOct;


/***/ }),

/***/ 452:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);

// If the value associated with a merge key is a single mapping node, each of
// its key/value pairs is inserted into the current mapping, unless the key
// already exists in it. If the value associated with the merge key is a
// sequence, then this sequence is expected to contain mapping nodes and each
// of these nodes is merged in turn according to its order in the sequence.
// Keys in mapping nodes earlier in the sequence override keys specified in
// later mapping nodes. -- http://yaml.org/type/merge.html
const MERGE_KEY = '<<';
const merge = {
    identify: value => value === MERGE_KEY ||
        (typeof value === 'symbol' && value.description === MERGE_KEY),
    default: 'key',
    tag: 'tag:yaml.org,2002:merge',
    test: /^<<$/,
    resolve: () => Object.assign(new Scalar.Scalar(Symbol(MERGE_KEY)), {
        addToJSMap: addMergeToJSMap
    }),
    stringify: () => MERGE_KEY
};
const isMergeKey = (ctx, key) => (merge.identify(key) ||
    (identity.isScalar(key) &&
        (!key.type || key.type === Scalar.Scalar.PLAIN) &&
        merge.identify(key.value))) &&
    ctx?.doc.schema.tags.some(tag => tag.tag === merge.tag && tag.default);
function addMergeToJSMap(ctx, map, value) {
    const source = resolveAliasValue(ctx, value);
    if (identity.isSeq(source))
        for (const it of source.items)
            mergeValue(ctx, map, it);
    else if (Array.isArray(source))
        for (const it of source)
            mergeValue(ctx, map, it);
    else
        mergeValue(ctx, map, source);
}
function mergeValue(ctx, map, value) {
    const source = resolveAliasValue(ctx, value);
    if (!identity.isMap(source))
        throw new Error('Merge sources must be maps or map aliases');
    const srcMap = source.toJSON(null, ctx, Map);
    for (const [key, value] of srcMap) {
        if (map instanceof Map) {
            if (!map.has(key))
                map.set(key, value);
        }
        else if (map instanceof Set) {
            map.add(key);
        }
        else if (!Object.prototype.hasOwnProperty.call(map, key)) {
            Object.defineProperty(map, key, {
                value,
                writable: true,
                enumerable: true,
                configurable: true
            });
        }
    }
    return map;
}
function resolveAliasValue(ctx, value) {
    return ctx && identity.isAlias(value) ? value.resolve(ctx.doc, ctx) : value;
}

exports.addMergeToJSMap = addMergeToJSMap;
exports.isMergeKey = isMergeKey;
exports.merge = merge;


/***/ }),

/***/ 303:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var toJS = __nccwpck_require__(4043);
var YAMLMap = __nccwpck_require__(4454);
var YAMLSeq = __nccwpck_require__(2223);
var pairs = __nccwpck_require__(8385);

class YAMLOMap extends YAMLSeq.YAMLSeq {
    constructor() {
        super();
        this.add = YAMLMap.YAMLMap.prototype.add.bind(this);
        this.delete = YAMLMap.YAMLMap.prototype.delete.bind(this);
        this.get = YAMLMap.YAMLMap.prototype.get.bind(this);
        this.has = YAMLMap.YAMLMap.prototype.has.bind(this);
        this.set = YAMLMap.YAMLMap.prototype.set.bind(this);
        this.tag = YAMLOMap.tag;
    }
    /**
     * If `ctx` is given, the return type is actually `Map<unknown, unknown>`,
     * but TypeScript won't allow widening the signature of a child method.
     */
    toJSON(_, ctx) {
        if (!ctx)
            return super.toJSON(_);
        const map = new Map();
        if (ctx?.onCreate)
            ctx.onCreate(map);
        for (const pair of this.items) {
            let key, value;
            if (identity.isPair(pair)) {
                key = toJS.toJS(pair.key, '', ctx);
                value = toJS.toJS(pair.value, key, ctx);
            }
            else {
                key = toJS.toJS(pair, '', ctx);
            }
            if (map.has(key))
                throw new Error('Ordered maps must not include duplicate keys');
            map.set(key, value);
        }
        return map;
    }
    static from(schema, iterable, ctx) {
        const pairs$1 = pairs.createPairs(schema, iterable, ctx);
        const omap = new this();
        omap.items = pairs$1.items;
        return omap;
    }
}
YAMLOMap.tag = 'tag:yaml.org,2002:omap';
const omap = {
    collection: 'seq',
    identify: value => value instanceof Map,
    nodeClass: YAMLOMap,
    default: false,
    tag: 'tag:yaml.org,2002:omap',
    resolve(seq, onError) {
        const pairs$1 = pairs.resolvePairs(seq, onError);
        const seenKeys = [];
        for (const { key } of pairs$1.items) {
            if (identity.isScalar(key)) {
                if (seenKeys.includes(key.value)) {
                    onError(`Ordered maps must not include duplicate keys: ${key.value}`);
                }
                else {
                    seenKeys.push(key.value);
                }
            }
        }
        return Object.assign(new YAMLOMap(), pairs$1);
    },
    createNode: (schema, iterable, ctx) => YAMLOMap.from(schema, iterable, ctx)
};

exports.YAMLOMap = YAMLOMap;
exports.omap = omap;


/***/ }),

/***/ 8385:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var Scalar = __nccwpck_require__(3301);
var YAMLSeq = __nccwpck_require__(2223);

function resolvePairs(seq, onError) {
    if (identity.isSeq(seq)) {
        for (let i = 0; i < seq.items.length; ++i) {
            let item = seq.items[i];
            if (identity.isPair(item))
                continue;
            else if (identity.isMap(item)) {
                if (item.items.length > 1)
                    onError('Each pair must have its own sequence indicator');
                const pair = item.items[0] || new Pair.Pair(new Scalar.Scalar(null));
                if (item.commentBefore)
                    pair.key.commentBefore = pair.key.commentBefore
                        ? `${item.commentBefore}\n${pair.key.commentBefore}`
                        : item.commentBefore;
                if (item.comment) {
                    const cn = pair.value ?? pair.key;
                    cn.comment = cn.comment
                        ? `${item.comment}\n${cn.comment}`
                        : item.comment;
                }
                item = pair;
            }
            seq.items[i] = identity.isPair(item) ? item : new Pair.Pair(item);
        }
    }
    else
        onError('Expected a sequence for this tag');
    return seq;
}
function createPairs(schema, iterable, ctx) {
    const { replacer } = ctx;
    const pairs = new YAMLSeq.YAMLSeq(schema);
    pairs.tag = 'tag:yaml.org,2002:pairs';
    let i = 0;
    if (iterable && Symbol.iterator in Object(iterable))
        for (let it of iterable) {
            if (typeof replacer === 'function')
                it = replacer.call(iterable, String(i++), it);
            let key, value;
            if (Array.isArray(it)) {
                if (it.length === 2) {
                    key = it[0];
                    value = it[1];
                }
                else
                    throw new TypeError(`Expected [key, value] tuple: ${it}`);
            }
            else if (it && it instanceof Object) {
                const keys = Object.keys(it);
                if (keys.length === 1) {
                    key = keys[0];
                    value = it[key];
                }
                else {
                    throw new TypeError(`Expected tuple with one key, not ${keys.length} keys`);
                }
            }
            else {
                key = it;
            }
            pairs.items.push(Pair.createPair(key, value, ctx));
        }
    return pairs;
}
const pairs = {
    collection: 'seq',
    default: false,
    tag: 'tag:yaml.org,2002:pairs',
    resolve: resolvePairs,
    createNode: createPairs
};

exports.createPairs = createPairs;
exports.pairs = pairs;
exports.resolvePairs = resolvePairs;


/***/ }),

/***/ 5913:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var map = __nccwpck_require__(7451);
var _null = __nccwpck_require__(3632);
var seq = __nccwpck_require__(1706);
var string = __nccwpck_require__(6464);
var binary = __nccwpck_require__(6083);
var bool = __nccwpck_require__(8398);
var float = __nccwpck_require__(5782);
var int = __nccwpck_require__(873);
var merge = __nccwpck_require__(452);
var omap = __nccwpck_require__(303);
var pairs = __nccwpck_require__(8385);
var set = __nccwpck_require__(1528);
var timestamp = __nccwpck_require__(6752);

const schema = [
    map.map,
    seq.seq,
    string.string,
    _null.nullTag,
    bool.trueTag,
    bool.falseTag,
    int.intBin,
    int.intOct,
    int.int,
    int.intHex,
    float.floatNaN,
    float.floatExp,
    float.float,
    binary.binary,
    merge.merge,
    omap.omap,
    pairs.pairs,
    set.set,
    timestamp.intTime,
    timestamp.floatTime,
    timestamp.timestamp
];

exports.schema = schema;


/***/ }),

/***/ 1528:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Pair = __nccwpck_require__(7165);
var YAMLMap = __nccwpck_require__(4454);

class YAMLSet extends YAMLMap.YAMLMap {
    constructor(schema) {
        super(schema);
        this.tag = YAMLSet.tag;
    }
    add(key) {
        let pair;
        if (identity.isPair(key))
            pair = key;
        else if (key &&
            typeof key === 'object' &&
            'key' in key &&
            'value' in key &&
            key.value === null)
            pair = new Pair.Pair(key.key, null);
        else
            pair = new Pair.Pair(key, null);
        const prev = YAMLMap.findPair(this.items, pair.key);
        if (!prev)
            this.items.push(pair);
    }
    /**
     * If `keepPair` is `true`, returns the Pair matching `key`.
     * Otherwise, returns the value of that Pair's key.
     */
    get(key, keepPair) {
        const pair = YAMLMap.findPair(this.items, key);
        return !keepPair && identity.isPair(pair)
            ? identity.isScalar(pair.key)
                ? pair.key.value
                : pair.key
            : pair;
    }
    set(key, value) {
        if (typeof value !== 'boolean')
            throw new Error(`Expected boolean value for set(key, value) in a YAML set, not ${typeof value}`);
        const prev = YAMLMap.findPair(this.items, key);
        if (prev && !value) {
            this.items.splice(this.items.indexOf(prev), 1);
        }
        else if (!prev && value) {
            this.items.push(new Pair.Pair(key));
        }
    }
    toJSON(_, ctx) {
        return super.toJSON(_, ctx, Set);
    }
    toString(ctx, onComment, onChompKeep) {
        if (!ctx)
            return JSON.stringify(this);
        if (this.hasAllNullValues(true))
            return super.toString(Object.assign({}, ctx, { allNullValues: true }), onComment, onChompKeep);
        else
            throw new Error('Set items must all have null values');
    }
    static from(schema, iterable, ctx) {
        const { replacer } = ctx;
        const set = new this(schema);
        if (iterable && Symbol.iterator in Object(iterable))
            for (let value of iterable) {
                if (typeof replacer === 'function')
                    value = replacer.call(iterable, value, value);
                set.items.push(Pair.createPair(value, null, ctx));
            }
        return set;
    }
}
YAMLSet.tag = 'tag:yaml.org,2002:set';
const set = {
    collection: 'map',
    identify: value => value instanceof Set,
    nodeClass: YAMLSet,
    default: false,
    tag: 'tag:yaml.org,2002:set',
    createNode: (schema, iterable, ctx) => YAMLSet.from(schema, iterable, ctx),
    resolve(map, onError) {
        if (identity.isMap(map)) {
            if (map.hasAllNullValues(true))
                return Object.assign(new YAMLSet(), map);
            else
                onError('Set items must all have null values');
        }
        else
            onError('Expected a mapping for this tag');
        return map;
    }
};

exports.YAMLSet = YAMLSet;
exports.set = set;


/***/ }),

/***/ 6752:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var stringifyNumber = __nccwpck_require__(8689);

/** Internal types handle bigint as number, because TS can't figure it out. */
function parseSexagesimal(str, asBigInt) {
    const sign = str[0];
    const parts = sign === '-' || sign === '+' ? str.substring(1) : str;
    const num = (n) => asBigInt ? BigInt(n) : Number(n);
    const res = parts
        .replace(/_/g, '')
        .split(':')
        .reduce((res, p) => res * num(60) + num(p), num(0));
    return (sign === '-' ? num(-1) * res : res);
}
/**
 * hhhh:mm:ss.sss
 *
 * Internal types handle bigint as number, because TS can't figure it out.
 */
function stringifySexagesimal(node) {
    let { value } = node;
    let num = (n) => n;
    if (typeof value === 'bigint')
        num = n => BigInt(n);
    else if (isNaN(value) || !isFinite(value))
        return stringifyNumber.stringifyNumber(node);
    let sign = '';
    if (value < 0) {
        sign = '-';
        value *= num(-1);
    }
    const _60 = num(60);
    const parts = [value % _60]; // seconds, including ms
    if (value < 60) {
        parts.unshift(0); // at least one : is required
    }
    else {
        value = (value - parts[0]) / _60;
        parts.unshift(value % _60); // minutes
        if (value >= 60) {
            value = (value - parts[0]) / _60;
            parts.unshift(value); // hours
        }
    }
    return (sign +
        parts
            .map(n => String(n).padStart(2, '0'))
            .join(':')
            .replace(/000000\d*$/, '') // % 60 may introduce error
    );
}
const intTime = {
    identify: value => typeof value === 'bigint' || Number.isInteger(value),
    default: true,
    tag: 'tag:yaml.org,2002:int',
    format: 'TIME',
    test: /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+$/,
    resolve: (str, _onError, { intAsBigInt }) => parseSexagesimal(str, intAsBigInt),
    stringify: stringifySexagesimal
};
const floatTime = {
    identify: value => typeof value === 'number',
    default: true,
    tag: 'tag:yaml.org,2002:float',
    format: 'TIME',
    test: /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*$/,
    resolve: str => parseSexagesimal(str, false),
    stringify: stringifySexagesimal
};
const timestamp = {
    identify: value => value instanceof Date,
    default: true,
    tag: 'tag:yaml.org,2002:timestamp',
    // If the time zone is omitted, the timestamp is assumed to be specified in UTC. The time part
    // may be omitted altogether, resulting in a date format. In such a case, the time part is
    // assumed to be 00:00:00Z (start of day, UTC).
    test: RegExp('^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})' + // YYYY-Mm-Dd
        '(?:' + // time is optional
        '(?:t|T|[ \\t]+)' + // t | T | whitespace
        '([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\\.[0-9]+)?)' + // Hh:Mm:Ss(.ss)?
        '(?:[ \\t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?' + // Z | +5 | -03:30
        ')?$'),
    resolve(str) {
        const match = str.match(timestamp.test);
        if (!match)
            throw new Error('!!timestamp expects a date, starting with yyyy-mm-dd');
        const [, year, month, day, hour, minute, second] = match.map(Number);
        const millisec = match[7] ? Number((match[7] + '00').substr(1, 3)) : 0;
        let date = Date.UTC(year, month - 1, day, hour || 0, minute || 0, second || 0, millisec);
        const tz = match[8];
        if (tz && tz !== 'Z') {
            let d = parseSexagesimal(tz, false);
            if (Math.abs(d) < 30)
                d *= 60;
            date -= 60000 * d;
        }
        return new Date(date);
    },
    stringify: ({ value }) => value?.toISOString().replace(/(T00:00:00)?\.000Z$/, '') ?? ''
};

exports.floatTime = floatTime;
exports.intTime = intTime;
exports.timestamp = timestamp;


/***/ }),

/***/ 4475:
/***/ ((__unused_webpack_module, exports) => {



const FOLD_FLOW = 'flow';
const FOLD_BLOCK = 'block';
const FOLD_QUOTED = 'quoted';
/**
 * Tries to keep input at up to `lineWidth` characters, splitting only on spaces
 * not followed by newlines or spaces unless `mode` is `'quoted'`. Lines are
 * terminated with `\n` and started with `indent`.
 */
function foldFlowLines(text, indent, mode = 'flow', { indentAtStart, lineWidth = 80, minContentWidth = 20, onFold, onOverflow } = {}) {
    if (!lineWidth || lineWidth < 0)
        return text;
    if (lineWidth < minContentWidth)
        minContentWidth = 0;
    const endStep = Math.max(1 + minContentWidth, 1 + lineWidth - indent.length);
    if (text.length <= endStep)
        return text;
    const folds = [];
    const escapedFolds = {};
    let end = lineWidth - indent.length;
    if (typeof indentAtStart === 'number') {
        if (indentAtStart > lineWidth - Math.max(2, minContentWidth))
            folds.push(0);
        else
            end = lineWidth - indentAtStart;
    }
    let split = undefined;
    let prev = undefined;
    let overflow = false;
    let i = -1;
    let escStart = -1;
    let escEnd = -1;
    if (mode === FOLD_BLOCK) {
        i = consumeMoreIndentedLines(text, i, indent.length);
        if (i !== -1)
            end = i + endStep;
    }
    for (let ch; (ch = text[(i += 1)]);) {
        if (mode === FOLD_QUOTED && ch === '\\') {
            escStart = i;
            switch (text[i + 1]) {
                case 'x':
                    i += 3;
                    break;
                case 'u':
                    i += 5;
                    break;
                case 'U':
                    i += 9;
                    break;
                default:
                    i += 1;
            }
            escEnd = i;
        }
        if (ch === '\n') {
            if (mode === FOLD_BLOCK)
                i = consumeMoreIndentedLines(text, i, indent.length);
            end = i + indent.length + endStep;
            split = undefined;
        }
        else {
            if (ch === ' ' &&
                prev &&
                prev !== ' ' &&
                prev !== '\n' &&
                prev !== '\t') {
                // space surrounded by non-space can be replaced with newline + indent
                const next = text[i + 1];
                if (next && next !== ' ' && next !== '\n' && next !== '\t')
                    split = i;
            }
            if (i >= end) {
                if (split) {
                    folds.push(split);
                    end = split + endStep;
                    split = undefined;
                }
                else if (mode === FOLD_QUOTED) {
                    // white-space collected at end may stretch past lineWidth
                    while (prev === ' ' || prev === '\t') {
                        prev = ch;
                        ch = text[(i += 1)];
                        overflow = true;
                    }
                    // Account for newline escape, but don't break preceding escape
                    const j = i > escEnd + 1 ? i - 2 : escStart - 1;
                    // Bail out if lineWidth & minContentWidth are shorter than an escape string
                    if (escapedFolds[j])
                        return text;
                    folds.push(j);
                    escapedFolds[j] = true;
                    end = j + endStep;
                    split = undefined;
                }
                else {
                    overflow = true;
                }
            }
        }
        prev = ch;
    }
    if (overflow && onOverflow)
        onOverflow();
    if (folds.length === 0)
        return text;
    if (onFold)
        onFold();
    let res = text.slice(0, folds[0]);
    for (let i = 0; i < folds.length; ++i) {
        const fold = folds[i];
        const end = folds[i + 1] || text.length;
        if (fold === 0)
            res = `\n${indent}${text.slice(0, end)}`;
        else {
            if (mode === FOLD_QUOTED && escapedFolds[fold])
                res += `${text[fold]}\\`;
            res += `\n${indent}${text.slice(fold + 1, end)}`;
        }
    }
    return res;
}
/**
 * Presumes `i + 1` is at the start of a line
 * @returns index of last newline in more-indented block
 */
function consumeMoreIndentedLines(text, i, indent) {
    let end = i;
    let start = i + 1;
    let ch = text[start];
    while (ch === ' ' || ch === '\t') {
        if (i < start + indent) {
            ch = text[++i];
        }
        else {
            do {
                ch = text[++i];
            } while (ch && ch !== '\n');
            end = i;
            start = i + 1;
            ch = text[start];
        }
    }
    return end;
}

exports.FOLD_BLOCK = FOLD_BLOCK;
exports.FOLD_FLOW = FOLD_FLOW;
exports.FOLD_QUOTED = FOLD_QUOTED;
exports.foldFlowLines = foldFlowLines;


/***/ }),

/***/ 2148:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var anchors = __nccwpck_require__(1596);
var identity = __nccwpck_require__(1127);
var stringifyComment = __nccwpck_require__(9799);
var stringifyString = __nccwpck_require__(3069);

function createStringifyContext(doc, options) {
    const opt = Object.assign({
        blockQuote: true,
        commentString: stringifyComment.stringifyComment,
        defaultKeyType: null,
        defaultStringType: 'PLAIN',
        directives: null,
        doubleQuotedAsJSON: false,
        doubleQuotedMinMultiLineLength: 40,
        falseStr: 'false',
        flowCollectionPadding: true,
        indentSeq: true,
        lineWidth: 80,
        minContentWidth: 20,
        nullStr: 'null',
        simpleKeys: false,
        singleQuote: null,
        trailingComma: false,
        trueStr: 'true',
        verifyAliasOrder: true
    }, doc.schema.toStringOptions, options);
    let inFlow;
    switch (opt.collectionStyle) {
        case 'block':
            inFlow = false;
            break;
        case 'flow':
            inFlow = true;
            break;
        default:
            inFlow = null;
    }
    return {
        anchors: new Set(),
        doc,
        flowCollectionPadding: opt.flowCollectionPadding ? ' ' : '',
        indent: '',
        indentStep: typeof opt.indent === 'number' ? ' '.repeat(opt.indent) : '  ',
        inFlow,
        options: opt
    };
}
function getTagObject(tags, item) {
    if (item.tag) {
        const match = tags.filter(t => t.tag === item.tag);
        if (match.length > 0)
            return match.find(t => t.format === item.format) ?? match[0];
    }
    let tagObj = undefined;
    let obj;
    if (identity.isScalar(item)) {
        obj = item.value;
        let match = tags.filter(t => t.identify?.(obj));
        if (match.length > 1) {
            const testMatch = match.filter(t => t.test);
            if (testMatch.length > 0)
                match = testMatch;
        }
        tagObj =
            match.find(t => t.format === item.format) ?? match.find(t => !t.format);
    }
    else {
        obj = item;
        tagObj = tags.find(t => t.nodeClass && obj instanceof t.nodeClass);
    }
    if (!tagObj) {
        const name = obj?.constructor?.name ?? (obj === null ? 'null' : typeof obj);
        throw new Error(`Tag not resolved for ${name} value`);
    }
    return tagObj;
}
// needs to be called before value stringifier to allow for circular anchor refs
function stringifyProps(node, tagObj, { anchors: anchors$1, doc }) {
    if (!doc.directives)
        return '';
    const props = [];
    const anchor = (identity.isScalar(node) || identity.isCollection(node)) && node.anchor;
    if (anchor && anchors.anchorIsValid(anchor)) {
        anchors$1.add(anchor);
        props.push(`&${anchor}`);
    }
    const tag = node.tag ?? (tagObj.default ? null : tagObj.tag);
    if (tag)
        props.push(doc.directives.tagString(tag));
    return props.join(' ');
}
function stringify(item, ctx, onComment, onChompKeep) {
    if (identity.isPair(item))
        return item.toString(ctx, onComment, onChompKeep);
    if (identity.isAlias(item)) {
        if (ctx.doc.directives)
            return item.toString(ctx);
        if (ctx.resolvedAliases?.has(item)) {
            throw new TypeError(`Cannot stringify circular structure without alias nodes`);
        }
        else {
            if (ctx.resolvedAliases)
                ctx.resolvedAliases.add(item);
            else
                ctx.resolvedAliases = new Set([item]);
            item = item.resolve(ctx.doc);
        }
    }
    let tagObj = undefined;
    const node = identity.isNode(item)
        ? item
        : ctx.doc.createNode(item, { onTagObj: o => (tagObj = o) });
    tagObj ?? (tagObj = getTagObject(ctx.doc.schema.tags, node));
    const props = stringifyProps(node, tagObj, ctx);
    if (props.length > 0)
        ctx.indentAtStart = (ctx.indentAtStart ?? 0) + props.length + 1;
    const str = typeof tagObj.stringify === 'function'
        ? tagObj.stringify(node, ctx, onComment, onChompKeep)
        : identity.isScalar(node)
            ? stringifyString.stringifyString(node, ctx, onComment, onChompKeep)
            : node.toString(ctx, onComment, onChompKeep);
    if (!props)
        return str;
    return identity.isScalar(node) || str[0] === '{' || str[0] === '['
        ? `${props} ${str}`
        : `${props}\n${ctx.indent}${str}`;
}

exports.createStringifyContext = createStringifyContext;
exports.stringify = stringify;


/***/ }),

/***/ 1212:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var stringify = __nccwpck_require__(2148);
var stringifyComment = __nccwpck_require__(9799);

function stringifyCollection(collection, ctx, options) {
    const flow = ctx.inFlow ?? collection.flow;
    const stringify = flow ? stringifyFlowCollection : stringifyBlockCollection;
    return stringify(collection, ctx, options);
}
function stringifyBlockCollection({ comment, items }, ctx, { blockItemPrefix, flowChars, itemIndent, onChompKeep, onComment }) {
    const { indent, options: { commentString } } = ctx;
    const itemCtx = Object.assign({}, ctx, { indent: itemIndent, type: null });
    let chompKeep = false; // flag for the preceding node's status
    const lines = [];
    for (let i = 0; i < items.length; ++i) {
        const item = items[i];
        let comment = null;
        if (identity.isNode(item)) {
            if (!chompKeep && item.spaceBefore)
                lines.push('');
            addCommentBefore(ctx, lines, item.commentBefore, chompKeep);
            if (item.comment)
                comment = item.comment;
        }
        else if (identity.isPair(item)) {
            const ik = identity.isNode(item.key) ? item.key : null;
            if (ik) {
                if (!chompKeep && ik.spaceBefore)
                    lines.push('');
                addCommentBefore(ctx, lines, ik.commentBefore, chompKeep);
            }
        }
        chompKeep = false;
        let str = stringify.stringify(item, itemCtx, () => (comment = null), () => (chompKeep = true));
        if (comment)
            str += stringifyComment.lineComment(str, itemIndent, commentString(comment));
        if (chompKeep && comment)
            chompKeep = false;
        lines.push(blockItemPrefix + str);
    }
    let str;
    if (lines.length === 0) {
        str = flowChars.start + flowChars.end;
    }
    else {
        str = lines[0];
        for (let i = 1; i < lines.length; ++i) {
            const line = lines[i];
            str += line ? `\n${indent}${line}` : '\n';
        }
    }
    if (comment) {
        str += '\n' + stringifyComment.indentComment(commentString(comment), indent);
        if (onComment)
            onComment();
    }
    else if (chompKeep && onChompKeep)
        onChompKeep();
    return str;
}
function stringifyFlowCollection({ items }, ctx, { flowChars, itemIndent }) {
    const { indent, indentStep, flowCollectionPadding: fcPadding, options: { commentString } } = ctx;
    itemIndent += indentStep;
    const itemCtx = Object.assign({}, ctx, {
        indent: itemIndent,
        inFlow: true,
        type: null
    });
    let reqNewline = false;
    let linesAtValue = 0;
    const lines = [];
    for (let i = 0; i < items.length; ++i) {
        const item = items[i];
        let comment = null;
        if (identity.isNode(item)) {
            if (item.spaceBefore)
                lines.push('');
            addCommentBefore(ctx, lines, item.commentBefore, false);
            if (item.comment)
                comment = item.comment;
        }
        else if (identity.isPair(item)) {
            const ik = identity.isNode(item.key) ? item.key : null;
            if (ik) {
                if (ik.spaceBefore)
                    lines.push('');
                addCommentBefore(ctx, lines, ik.commentBefore, false);
                if (ik.comment)
                    reqNewline = true;
            }
            const iv = identity.isNode(item.value) ? item.value : null;
            if (iv) {
                if (iv.comment)
                    comment = iv.comment;
                if (iv.commentBefore)
                    reqNewline = true;
            }
            else if (item.value == null && ik?.comment) {
                comment = ik.comment;
            }
        }
        if (comment)
            reqNewline = true;
        let str = stringify.stringify(item, itemCtx, () => (comment = null));
        reqNewline || (reqNewline = lines.length > linesAtValue || str.includes('\n'));
        if (i < items.length - 1) {
            str += ',';
        }
        else if (ctx.options.trailingComma) {
            if (ctx.options.lineWidth > 0) {
                reqNewline || (reqNewline = lines.reduce((sum, line) => sum + line.length + 2, 2) +
                    (str.length + 2) >
                    ctx.options.lineWidth);
            }
            if (reqNewline) {
                str += ',';
            }
        }
        if (comment)
            str += stringifyComment.lineComment(str, itemIndent, commentString(comment));
        lines.push(str);
        linesAtValue = lines.length;
    }
    const { start, end } = flowChars;
    if (lines.length === 0) {
        return start + end;
    }
    else {
        if (!reqNewline) {
            const len = lines.reduce((sum, line) => sum + line.length + 2, 2);
            reqNewline = ctx.options.lineWidth > 0 && len > ctx.options.lineWidth;
        }
        if (reqNewline) {
            let str = start;
            for (const line of lines)
                str += line ? `\n${indentStep}${indent}${line}` : '\n';
            return `${str}\n${indent}${end}`;
        }
        else {
            return `${start}${fcPadding}${lines.join(' ')}${fcPadding}${end}`;
        }
    }
}
function addCommentBefore({ indent, options: { commentString } }, lines, comment, chompKeep) {
    if (comment && chompKeep)
        comment = comment.replace(/^\n+/, '');
    if (comment) {
        const ic = stringifyComment.indentComment(commentString(comment), indent);
        lines.push(ic.trimStart()); // Avoid double indent on first line
    }
}

exports.stringifyCollection = stringifyCollection;


/***/ }),

/***/ 9799:
/***/ ((__unused_webpack_module, exports) => {



/**
 * Stringifies a comment.
 *
 * Empty comment lines are left empty,
 * lines consisting of a single space are replaced by `#`,
 * and all other lines are prefixed with a `#`.
 */
const stringifyComment = (str) => str.replace(/^(?!$)(?: $)?/gm, '#');
function indentComment(comment, indent) {
    if (/^\n+$/.test(comment))
        return comment.substring(1);
    return indent ? comment.replace(/^(?! *$)/gm, indent) : comment;
}
const lineComment = (str, indent, comment) => str.endsWith('\n')
    ? indentComment(comment, indent)
    : comment.includes('\n')
        ? '\n' + indentComment(comment, indent)
        : (str.endsWith(' ') ? '' : ' ') + comment;

exports.indentComment = indentComment;
exports.lineComment = lineComment;
exports.stringifyComment = stringifyComment;


/***/ }),

/***/ 6829:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var stringify = __nccwpck_require__(2148);
var stringifyComment = __nccwpck_require__(9799);

function stringifyDocument(doc, options) {
    const lines = [];
    let hasDirectives = options.directives === true;
    if (options.directives !== false && doc.directives) {
        const dir = doc.directives.toString(doc);
        if (dir) {
            lines.push(dir);
            hasDirectives = true;
        }
        else if (doc.directives.docStart)
            hasDirectives = true;
    }
    if (hasDirectives)
        lines.push('---');
    const ctx = stringify.createStringifyContext(doc, options);
    const { commentString } = ctx.options;
    if (doc.commentBefore) {
        if (lines.length !== 1)
            lines.unshift('');
        const cs = commentString(doc.commentBefore);
        lines.unshift(stringifyComment.indentComment(cs, ''));
    }
    let chompKeep = false;
    let contentComment = null;
    if (doc.contents) {
        if (identity.isNode(doc.contents)) {
            if (doc.contents.spaceBefore && hasDirectives)
                lines.push('');
            if (doc.contents.commentBefore) {
                const cs = commentString(doc.contents.commentBefore);
                lines.push(stringifyComment.indentComment(cs, ''));
            }
            // top-level block scalars need to be indented if followed by a comment
            ctx.forceBlockIndent = !!doc.comment;
            contentComment = doc.contents.comment;
        }
        const onChompKeep = contentComment ? undefined : () => (chompKeep = true);
        let body = stringify.stringify(doc.contents, ctx, () => (contentComment = null), onChompKeep);
        if (contentComment)
            body += stringifyComment.lineComment(body, '', commentString(contentComment));
        if ((body[0] === '|' || body[0] === '>') &&
            lines[lines.length - 1] === '---') {
            // Top-level block scalars with a preceding doc marker ought to use the
            // same line for their header.
            lines[lines.length - 1] = `--- ${body}`;
        }
        else
            lines.push(body);
    }
    else {
        lines.push(stringify.stringify(doc.contents, ctx));
    }
    if (doc.directives?.docEnd) {
        if (doc.comment) {
            const cs = commentString(doc.comment);
            if (cs.includes('\n')) {
                lines.push('...');
                lines.push(stringifyComment.indentComment(cs, ''));
            }
            else {
                lines.push(`... ${cs}`);
            }
        }
        else {
            lines.push('...');
        }
    }
    else {
        let dc = doc.comment;
        if (dc && chompKeep)
            dc = dc.replace(/^\n+/, '');
        if (dc) {
            if ((!chompKeep || contentComment) && lines[lines.length - 1] !== '')
                lines.push('');
            lines.push(stringifyComment.indentComment(commentString(dc), ''));
        }
    }
    return lines.join('\n') + '\n';
}

exports.stringifyDocument = stringifyDocument;


/***/ }),

/***/ 8689:
/***/ ((__unused_webpack_module, exports) => {



function stringifyNumber({ format, minFractionDigits, tag, value }) {
    if (typeof value === 'bigint')
        return String(value);
    const num = typeof value === 'number' ? value : Number(value);
    if (!isFinite(num))
        return isNaN(num) ? '.nan' : num < 0 ? '-.inf' : '.inf';
    let n = Object.is(value, -0) ? '-0' : JSON.stringify(value);
    if (!format &&
        minFractionDigits &&
        (!tag || tag === 'tag:yaml.org,2002:float') &&
        /^-?\d/.test(n) &&
        !n.includes('e')) {
        let i = n.indexOf('.');
        if (i < 0) {
            i = n.length;
            n += '.';
        }
        let d = minFractionDigits - (n.length - i - 1);
        while (d-- > 0)
            n += '0';
    }
    return n;
}

exports.stringifyNumber = stringifyNumber;


/***/ }),

/***/ 9748:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);
var Scalar = __nccwpck_require__(3301);
var stringify = __nccwpck_require__(2148);
var stringifyComment = __nccwpck_require__(9799);

function stringifyPair({ key, value }, ctx, onComment, onChompKeep) {
    const { allNullValues, doc, indent, indentStep, options: { commentString, indentSeq, simpleKeys } } = ctx;
    let keyComment = (identity.isNode(key) && key.comment) || null;
    if (simpleKeys) {
        if (keyComment) {
            throw new Error('With simple keys, key nodes cannot have comments');
        }
        if (identity.isCollection(key) || (!identity.isNode(key) && typeof key === 'object')) {
            const msg = 'With simple keys, collection cannot be used as a key value';
            throw new Error(msg);
        }
    }
    let explicitKey = !simpleKeys &&
        (!key ||
            (keyComment && value == null && !ctx.inFlow) ||
            identity.isCollection(key) ||
            (identity.isScalar(key)
                ? key.type === Scalar.Scalar.BLOCK_FOLDED || key.type === Scalar.Scalar.BLOCK_LITERAL
                : typeof key === 'object'));
    ctx = Object.assign({}, ctx, {
        allNullValues: false,
        implicitKey: !explicitKey && (simpleKeys || !allNullValues),
        indent: indent + indentStep
    });
    let keyCommentDone = false;
    let chompKeep = false;
    let str = stringify.stringify(key, ctx, () => (keyCommentDone = true), () => (chompKeep = true));
    if (!explicitKey && !ctx.inFlow && str.length > 1024) {
        if (simpleKeys)
            throw new Error('With simple keys, single line scalar must not span more than 1024 characters');
        explicitKey = true;
    }
    if (ctx.inFlow) {
        if (allNullValues || value == null) {
            if (keyCommentDone && onComment)
                onComment();
            return str === '' ? '?' : explicitKey ? `? ${str}` : str;
        }
    }
    else if ((allNullValues && !simpleKeys) || (value == null && explicitKey)) {
        str = `? ${str}`;
        if (keyComment && !keyCommentDone) {
            str += stringifyComment.lineComment(str, ctx.indent, commentString(keyComment));
        }
        else if (chompKeep && onChompKeep)
            onChompKeep();
        return str;
    }
    if (keyCommentDone)
        keyComment = null;
    if (explicitKey) {
        if (keyComment)
            str += stringifyComment.lineComment(str, ctx.indent, commentString(keyComment));
        str = `? ${str}\n${indent}:`;
    }
    else {
        str = `${str}:`;
        if (keyComment)
            str += stringifyComment.lineComment(str, ctx.indent, commentString(keyComment));
    }
    let vsb, vcb, valueComment;
    if (identity.isNode(value)) {
        vsb = !!value.spaceBefore;
        vcb = value.commentBefore;
        valueComment = value.comment;
    }
    else {
        vsb = false;
        vcb = null;
        valueComment = null;
        if (value && typeof value === 'object')
            value = doc.createNode(value);
    }
    ctx.implicitKey = false;
    if (!explicitKey && !keyComment && identity.isScalar(value))
        ctx.indentAtStart = str.length + 1;
    chompKeep = false;
    if (!indentSeq &&
        indentStep.length >= 2 &&
        !ctx.inFlow &&
        !explicitKey &&
        identity.isSeq(value) &&
        !value.flow &&
        !value.tag &&
        !value.anchor) {
        // If indentSeq === false, consider '- ' as part of indentation where possible
        ctx.indent = ctx.indent.substring(2);
    }
    let valueCommentDone = false;
    const valueStr = stringify.stringify(value, ctx, () => (valueCommentDone = true), () => (chompKeep = true));
    let ws = ' ';
    if (keyComment || vsb || vcb) {
        ws = vsb ? '\n' : '';
        if (vcb) {
            const cs = commentString(vcb);
            ws += `\n${stringifyComment.indentComment(cs, ctx.indent)}`;
        }
        if (valueStr === '' && !ctx.inFlow) {
            if (ws === '\n' && valueComment)
                ws = '\n\n';
        }
        else {
            ws += `\n${ctx.indent}`;
        }
    }
    else if (!explicitKey && identity.isCollection(value)) {
        const vs0 = valueStr[0];
        const nl0 = valueStr.indexOf('\n');
        const hasNewline = nl0 !== -1;
        const flow = ctx.inFlow ?? value.flow ?? value.items.length === 0;
        if (hasNewline || !flow) {
            let hasPropsLine = false;
            if (hasNewline && (vs0 === '&' || vs0 === '!')) {
                let sp0 = valueStr.indexOf(' ');
                if (vs0 === '&' &&
                    sp0 !== -1 &&
                    sp0 < nl0 &&
                    valueStr[sp0 + 1] === '!') {
                    sp0 = valueStr.indexOf(' ', sp0 + 1);
                }
                if (sp0 === -1 || nl0 < sp0)
                    hasPropsLine = true;
            }
            if (!hasPropsLine)
                ws = `\n${ctx.indent}`;
        }
    }
    else if (valueStr === '' || valueStr[0] === '\n') {
        ws = '';
    }
    str += ws + valueStr;
    if (ctx.inFlow) {
        if (valueCommentDone && onComment)
            onComment();
    }
    else if (valueComment && !valueCommentDone) {
        str += stringifyComment.lineComment(str, ctx.indent, commentString(valueComment));
    }
    else if (chompKeep && onChompKeep) {
        onChompKeep();
    }
    return str;
}

exports.stringifyPair = stringifyPair;


/***/ }),

/***/ 3069:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var Scalar = __nccwpck_require__(3301);
var foldFlowLines = __nccwpck_require__(4475);

const getFoldOptions = (ctx, isBlock) => ({
    indentAtStart: isBlock ? ctx.indent.length : ctx.indentAtStart,
    lineWidth: ctx.options.lineWidth,
    minContentWidth: ctx.options.minContentWidth
});
// Also checks for lines starting with %, as parsing the output as YAML 1.1 will
// presume that's starting a new document.
const containsDocumentMarker = (str) => /^(%|---|\.\.\.)/m.test(str);
function lineLengthOverLimit(str, lineWidth, indentLength) {
    if (!lineWidth || lineWidth < 0)
        return false;
    const limit = lineWidth - indentLength;
    const strLen = str.length;
    if (strLen <= limit)
        return false;
    for (let i = 0, start = 0; i < strLen; ++i) {
        if (str[i] === '\n') {
            if (i - start > limit)
                return true;
            start = i + 1;
            if (strLen - start <= limit)
                return false;
        }
    }
    return true;
}
function doubleQuotedString(value, ctx) {
    const json = JSON.stringify(value);
    if (ctx.options.doubleQuotedAsJSON)
        return json;
    const { implicitKey } = ctx;
    const minMultiLineLength = ctx.options.doubleQuotedMinMultiLineLength;
    const indent = ctx.indent || (containsDocumentMarker(value) ? '  ' : '');
    let str = '';
    let start = 0;
    for (let i = 0, ch = json[i]; ch; ch = json[++i]) {
        if (ch === ' ' && json[i + 1] === '\\' && json[i + 2] === 'n') {
            // space before newline needs to be escaped to not be folded
            str += json.slice(start, i) + '\\ ';
            i += 1;
            start = i;
            ch = '\\';
        }
        if (ch === '\\')
            switch (json[i + 1]) {
                case 'u':
                    {
                        str += json.slice(start, i);
                        const code = json.substr(i + 2, 4);
                        switch (code) {
                            case '0000':
                                str += '\\0';
                                break;
                            case '0007':
                                str += '\\a';
                                break;
                            case '000b':
                                str += '\\v';
                                break;
                            case '001b':
                                str += '\\e';
                                break;
                            case '0085':
                                str += '\\N';
                                break;
                            case '00a0':
                                str += '\\_';
                                break;
                            case '2028':
                                str += '\\L';
                                break;
                            case '2029':
                                str += '\\P';
                                break;
                            default:
                                if (code.substr(0, 2) === '00')
                                    str += '\\x' + code.substr(2);
                                else
                                    str += json.substr(i, 6);
                        }
                        i += 5;
                        start = i + 1;
                    }
                    break;
                case 'n':
                    if (implicitKey ||
                        json[i + 2] === '"' ||
                        json.length < minMultiLineLength) {
                        i += 1;
                    }
                    else {
                        // folding will eat first newline
                        str += json.slice(start, i) + '\n\n';
                        while (json[i + 2] === '\\' &&
                            json[i + 3] === 'n' &&
                            json[i + 4] !== '"') {
                            str += '\n';
                            i += 2;
                        }
                        str += indent;
                        // space after newline needs to be escaped to not be folded
                        if (json[i + 2] === ' ')
                            str += '\\';
                        i += 1;
                        start = i + 1;
                    }
                    break;
                default:
                    i += 1;
            }
    }
    str = start ? str + json.slice(start) : json;
    return implicitKey
        ? str
        : foldFlowLines.foldFlowLines(str, indent, foldFlowLines.FOLD_QUOTED, getFoldOptions(ctx, false));
}
function singleQuotedString(value, ctx) {
    if (ctx.options.singleQuote === false ||
        (ctx.implicitKey && value.includes('\n')) ||
        /[ \t]\n|\n[ \t]/.test(value) // single quoted string can't have leading or trailing whitespace around newline
    )
        return doubleQuotedString(value, ctx);
    const indent = ctx.indent || (containsDocumentMarker(value) ? '  ' : '');
    const res = "'" + value.replace(/'/g, "''").replace(/\n+/g, `$&\n${indent}`) + "'";
    return ctx.implicitKey
        ? res
        : foldFlowLines.foldFlowLines(res, indent, foldFlowLines.FOLD_FLOW, getFoldOptions(ctx, false));
}
function quotedString(value, ctx) {
    const { singleQuote } = ctx.options;
    let qs;
    if (singleQuote === false)
        qs = doubleQuotedString;
    else {
        const hasDouble = value.includes('"');
        const hasSingle = value.includes("'");
        if (hasDouble && !hasSingle)
            qs = singleQuotedString;
        else if (hasSingle && !hasDouble)
            qs = doubleQuotedString;
        else
            qs = singleQuote ? singleQuotedString : doubleQuotedString;
    }
    return qs(value, ctx);
}
// The negative lookbehind avoids a polynomial search,
// but isn't supported yet on Safari: https://caniuse.com/js-regexp-lookbehind
let blockEndNewlines;
try {
    blockEndNewlines = new RegExp('(^|(?<!\n))\n+(?!\n|$)', 'g');
}
catch {
    blockEndNewlines = /\n+(?!\n|$)/g;
}
function blockString({ comment, type, value }, ctx, onComment, onChompKeep) {
    const { blockQuote, commentString, lineWidth } = ctx.options;
    // 1. Block can't end in whitespace unless the last line is non-empty.
    // 2. Strings consisting of only whitespace are best rendered explicitly.
    if (!blockQuote || /\n[\t ]+$/.test(value)) {
        return quotedString(value, ctx);
    }
    const indent = ctx.indent ||
        (ctx.forceBlockIndent || containsDocumentMarker(value) ? '  ' : '');
    const literal = blockQuote === 'literal'
        ? true
        : blockQuote === 'folded' || type === Scalar.Scalar.BLOCK_FOLDED
            ? false
            : type === Scalar.Scalar.BLOCK_LITERAL
                ? true
                : !lineLengthOverLimit(value, lineWidth, indent.length);
    if (!value)
        return literal ? '|\n' : '>\n';
    // determine chomping from whitespace at value end
    let chomp;
    let endStart;
    for (endStart = value.length; endStart > 0; --endStart) {
        const ch = value[endStart - 1];
        if (ch !== '\n' && ch !== '\t' && ch !== ' ')
            break;
    }
    let end = value.substring(endStart);
    const endNlPos = end.indexOf('\n');
    if (endNlPos === -1) {
        chomp = '-'; // strip
    }
    else if (value === end || endNlPos !== end.length - 1) {
        chomp = '+'; // keep
        if (onChompKeep)
            onChompKeep();
    }
    else {
        chomp = ''; // clip
    }
    if (end) {
        value = value.slice(0, -end.length);
        if (end[end.length - 1] === '\n')
            end = end.slice(0, -1);
        end = end.replace(blockEndNewlines, `$&${indent}`);
    }
    // determine indent indicator from whitespace at value start
    let startWithSpace = false;
    let startEnd;
    let startNlPos = -1;
    for (startEnd = 0; startEnd < value.length; ++startEnd) {
        const ch = value[startEnd];
        if (ch === ' ')
            startWithSpace = true;
        else if (ch === '\n')
            startNlPos = startEnd;
        else
            break;
    }
    let start = value.substring(0, startNlPos < startEnd ? startNlPos + 1 : startEnd);
    if (start) {
        value = value.substring(start.length);
        start = start.replace(/\n+/g, `$&${indent}`);
    }
    const indentSize = indent ? '2' : '1'; // root is at -1
    // Leading | or > is added later
    let header = (startWithSpace ? indentSize : '') + chomp;
    if (comment) {
        header += ' ' + commentString(comment.replace(/ ?[\r\n]+/g, ' '));
        if (onComment)
            onComment();
    }
    if (!literal) {
        const foldedValue = value
            .replace(/\n+/g, '\n$&')
            .replace(/(?:^|\n)([\t ].*)(?:([\n\t ]*)\n(?![\n\t ]))?/g, '$1$2') // more-indented lines aren't folded
            //                ^ more-ind. ^ empty     ^ capture next empty lines only at end of indent
            .replace(/\n+/g, `$&${indent}`);
        let literalFallback = false;
        const foldOptions = getFoldOptions(ctx, true);
        if (blockQuote !== 'folded' && type !== Scalar.Scalar.BLOCK_FOLDED) {
            foldOptions.onOverflow = () => {
                literalFallback = true;
            };
        }
        const body = foldFlowLines.foldFlowLines(`${start}${foldedValue}${end}`, indent, foldFlowLines.FOLD_BLOCK, foldOptions);
        if (!literalFallback)
            return `>${header}\n${indent}${body}`;
    }
    value = value.replace(/\n+/g, `$&${indent}`);
    return `|${header}\n${indent}${start}${value}${end}`;
}
function plainString(item, ctx, onComment, onChompKeep) {
    const { type, value } = item;
    const { actualString, implicitKey, indent, indentStep, inFlow } = ctx;
    if ((implicitKey && value.includes('\n')) ||
        (inFlow && /[[\]{},]/.test(value))) {
        return quotedString(value, ctx);
    }
    if (/^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/.test(value)) {
        // not allowed:
        // - '-' or '?'
        // - start with an indicator character (except [?:-]) or /[?-] /
        // - '\n ', ': ' or ' \n' anywhere
        // - '#' not preceded by a non-space char
        // - end with ' ' or ':'
        return implicitKey || inFlow || !value.includes('\n')
            ? quotedString(value, ctx)
            : blockString(item, ctx, onComment, onChompKeep);
    }
    if (!implicitKey &&
        !inFlow &&
        type !== Scalar.Scalar.PLAIN &&
        value.includes('\n')) {
        // Where allowed & type not set explicitly, prefer block style for multiline strings
        return blockString(item, ctx, onComment, onChompKeep);
    }
    if (containsDocumentMarker(value)) {
        if (indent === '') {
            ctx.forceBlockIndent = true;
            return blockString(item, ctx, onComment, onChompKeep);
        }
        else if (implicitKey && indent === indentStep) {
            return quotedString(value, ctx);
        }
    }
    const str = value.replace(/\n+/g, `$&\n${indent}`);
    // Verify that output will be parsed as a string, as e.g. plain numbers and
    // booleans get parsed with those types in v1.2 (e.g. '42', 'true' & '0.9e-3'),
    // and others in v1.1.
    if (actualString) {
        const test = (tag) => tag.default && tag.tag !== 'tag:yaml.org,2002:str' && tag.test?.test(str);
        const { compat, tags } = ctx.doc.schema;
        if (tags.some(test) || compat?.some(test))
            return quotedString(value, ctx);
    }
    return implicitKey
        ? str
        : foldFlowLines.foldFlowLines(str, indent, foldFlowLines.FOLD_FLOW, getFoldOptions(ctx, false));
}
function stringifyString(item, ctx, onComment, onChompKeep) {
    const { implicitKey, inFlow } = ctx;
    const ss = typeof item.value === 'string'
        ? item
        : Object.assign({}, item, { value: String(item.value) });
    let { type } = item;
    if (type !== Scalar.Scalar.QUOTE_DOUBLE) {
        // force double quotes on control characters & unpaired surrogates
        if (/[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u.test(ss.value))
            type = Scalar.Scalar.QUOTE_DOUBLE;
    }
    const _stringify = (_type) => {
        switch (_type) {
            case Scalar.Scalar.BLOCK_FOLDED:
            case Scalar.Scalar.BLOCK_LITERAL:
                return implicitKey || inFlow
                    ? quotedString(ss.value, ctx) // blocks are not valid inside flow containers
                    : blockString(ss, ctx, onComment, onChompKeep);
            case Scalar.Scalar.QUOTE_DOUBLE:
                return doubleQuotedString(ss.value, ctx);
            case Scalar.Scalar.QUOTE_SINGLE:
                return singleQuotedString(ss.value, ctx);
            case Scalar.Scalar.PLAIN:
                return plainString(ss, ctx, onComment, onChompKeep);
            default:
                return null;
        }
    };
    let res = _stringify(type);
    if (res === null) {
        const { defaultKeyType, defaultStringType } = ctx.options;
        const t = (implicitKey && defaultKeyType) || defaultStringType;
        res = _stringify(t);
        if (res === null)
            throw new Error(`Unsupported default string type ${t}`);
    }
    return res;
}

exports.stringifyString = stringifyString;


/***/ }),

/***/ 204:
/***/ ((__unused_webpack_module, exports, __nccwpck_require__) => {



var identity = __nccwpck_require__(1127);

const BREAK = Symbol('break visit');
const SKIP = Symbol('skip children');
const REMOVE = Symbol('remove node');
/**
 * Apply a visitor to an AST node or document.
 *
 * Walks through the tree (depth-first) starting from `node`, calling a
 * `visitor` function with three arguments:
 *   - `key`: For sequence values and map `Pair`, the node's index in the
 *     collection. Within a `Pair`, `'key'` or `'value'`, correspondingly.
 *     `null` for the root node.
 *   - `node`: The current node.
 *   - `path`: The ancestry of the current node.
 *
 * The return value of the visitor may be used to control the traversal:
 *   - `undefined` (default): Do nothing and continue
 *   - `visit.SKIP`: Do not visit the children of this node, continue with next
 *     sibling
 *   - `visit.BREAK`: Terminate traversal completely
 *   - `visit.REMOVE`: Remove the current node, then continue with the next one
 *   - `Node`: Replace the current node, then continue by visiting it
 *   - `number`: While iterating the items of a sequence or map, set the index
 *     of the next step. This is useful especially if the index of the current
 *     node has changed.
 *
 * If `visitor` is a single function, it will be called with all values
 * encountered in the tree, including e.g. `null` values. Alternatively,
 * separate visitor functions may be defined for each `Map`, `Pair`, `Seq`,
 * `Alias` and `Scalar` node. To define the same visitor function for more than
 * one node type, use the `Collection` (map and seq), `Value` (map, seq & scalar)
 * and `Node` (alias, map, seq & scalar) targets. Of all these, only the most
 * specific defined one will be used for each node.
 */
function visit(node, visitor) {
    const visitor_ = initVisitor(visitor);
    if (identity.isDocument(node)) {
        const cd = visit_(null, node.contents, visitor_, Object.freeze([node]));
        if (cd === REMOVE)
            node.contents = null;
    }
    else
        visit_(null, node, visitor_, Object.freeze([]));
}
// Without the `as symbol` casts, TS declares these in the `visit`
// namespace using `var`, but then complains about that because
// `unique symbol` must be `const`.
/** Terminate visit traversal completely */
visit.BREAK = BREAK;
/** Do not visit the children of the current node */
visit.SKIP = SKIP;
/** Remove the current node */
visit.REMOVE = REMOVE;
function visit_(key, node, visitor, path) {
    const ctrl = callVisitor(key, node, visitor, path);
    if (identity.isNode(ctrl) || identity.isPair(ctrl)) {
        replaceNode(key, path, ctrl);
        return visit_(key, ctrl, visitor, path);
    }
    if (typeof ctrl !== 'symbol') {
        if (identity.isCollection(node)) {
            path = Object.freeze(path.concat(node));
            for (let i = 0; i < node.items.length; ++i) {
                const ci = visit_(i, node.items[i], visitor, path);
                if (typeof ci === 'number')
                    i = ci - 1;
                else if (ci === BREAK)
                    return BREAK;
                else if (ci === REMOVE) {
                    node.items.splice(i, 1);
                    i -= 1;
                }
            }
        }
        else if (identity.isPair(node)) {
            path = Object.freeze(path.concat(node));
            const ck = visit_('key', node.key, visitor, path);
            if (ck === BREAK)
                return BREAK;
            else if (ck === REMOVE)
                node.key = null;
            const cv = visit_('value', node.value, visitor, path);
            if (cv === BREAK)
                return BREAK;
            else if (cv === REMOVE)
                node.value = null;
        }
    }
    return ctrl;
}
/**
 * Apply an async visitor to an AST node or document.
 *
 * Walks through the tree (depth-first) starting from `node`, calling a
 * `visitor` function with three arguments:
 *   - `key`: For sequence values and map `Pair`, the node's index in the
 *     collection. Within a `Pair`, `'key'` or `'value'`, correspondingly.
 *     `null` for the root node.
 *   - `node`: The current node.
 *   - `path`: The ancestry of the current node.
 *
 * The return value of the visitor may be used to control the traversal:
 *   - `Promise`: Must resolve to one of the following values
 *   - `undefined` (default): Do nothing and continue
 *   - `visit.SKIP`: Do not visit the children of this node, continue with next
 *     sibling
 *   - `visit.BREAK`: Terminate traversal completely
 *   - `visit.REMOVE`: Remove the current node, then continue with the next one
 *   - `Node`: Replace the current node, then continue by visiting it
 *   - `number`: While iterating the items of a sequence or map, set the index
 *     of the next step. This is useful especially if the index of the current
 *     node has changed.
 *
 * If `visitor` is a single function, it will be called with all values
 * encountered in the tree, including e.g. `null` values. Alternatively,
 * separate visitor functions may be defined for each `Map`, `Pair`, `Seq`,
 * `Alias` and `Scalar` node. To define the same visitor function for more than
 * one node type, use the `Collection` (map and seq), `Value` (map, seq & scalar)
 * and `Node` (alias, map, seq & scalar) targets. Of all these, only the most
 * specific defined one will be used for each node.
 */
async function visitAsync(node, visitor) {
    const visitor_ = initVisitor(visitor);
    if (identity.isDocument(node)) {
        const cd = await visitAsync_(null, node.contents, visitor_, Object.freeze([node]));
        if (cd === REMOVE)
            node.contents = null;
    }
    else
        await visitAsync_(null, node, visitor_, Object.freeze([]));
}
// Without the `as symbol` casts, TS declares these in the `visit`
// namespace using `var`, but then complains about that because
// `unique symbol` must be `const`.
/** Terminate visit traversal completely */
visitAsync.BREAK = BREAK;
/** Do not visit the children of the current node */
visitAsync.SKIP = SKIP;
/** Remove the current node */
visitAsync.REMOVE = REMOVE;
async function visitAsync_(key, node, visitor, path) {
    const ctrl = await callVisitor(key, node, visitor, path);
    if (identity.isNode(ctrl) || identity.isPair(ctrl)) {
        replaceNode(key, path, ctrl);
        return visitAsync_(key, ctrl, visitor, path);
    }
    if (typeof ctrl !== 'symbol') {
        if (identity.isCollection(node)) {
            path = Object.freeze(path.concat(node));
            for (let i = 0; i < node.items.length; ++i) {
                const ci = await visitAsync_(i, node.items[i], visitor, path);
                if (typeof ci === 'number')
                    i = ci - 1;
                else if (ci === BREAK)
                    return BREAK;
                else if (ci === REMOVE) {
                    node.items.splice(i, 1);
                    i -= 1;
                }
            }
        }
        else if (identity.isPair(node)) {
            path = Object.freeze(path.concat(node));
            const ck = await visitAsync_('key', node.key, visitor, path);
            if (ck === BREAK)
                return BREAK;
            else if (ck === REMOVE)
                node.key = null;
            const cv = await visitAsync_('value', node.value, visitor, path);
            if (cv === BREAK)
                return BREAK;
            else if (cv === REMOVE)
                node.value = null;
        }
    }
    return ctrl;
}
function initVisitor(visitor) {
    if (typeof visitor === 'object' &&
        (visitor.Collection || visitor.Node || visitor.Value)) {
        return Object.assign({
            Alias: visitor.Node,
            Map: visitor.Node,
            Scalar: visitor.Node,
            Seq: visitor.Node
        }, visitor.Value && {
            Map: visitor.Value,
            Scalar: visitor.Value,
            Seq: visitor.Value
        }, visitor.Collection && {
            Map: visitor.Collection,
            Seq: visitor.Collection
        }, visitor);
    }
    return visitor;
}
function callVisitor(key, node, visitor, path) {
    if (typeof visitor === 'function')
        return visitor(key, node, path);
    if (identity.isMap(node))
        return visitor.Map?.(key, node, path);
    if (identity.isSeq(node))
        return visitor.Seq?.(key, node, path);
    if (identity.isPair(node))
        return visitor.Pair?.(key, node, path);
    if (identity.isScalar(node))
        return visitor.Scalar?.(key, node, path);
    if (identity.isAlias(node))
        return visitor.Alias?.(key, node, path);
    return undefined;
}
function replaceNode(key, path, node) {
    const parent = path[path.length - 1];
    if (identity.isCollection(parent)) {
        parent.items[key] = node;
    }
    else if (identity.isPair(parent)) {
        if (key === 'key')
            parent.key = node;
        else
            parent.value = node;
    }
    else if (identity.isDocument(parent)) {
        parent.contents = node;
    }
    else {
        const pt = identity.isAlias(parent) ? 'alias' : 'scalar';
        throw new Error(`Cannot replace node with ${pt} parent`);
    }
}

exports.visit = visit;
exports.visitAsync = visitAsync;


/***/ })

/******/ });
/************************************************************************/
/******/ // The module cache
/******/ var __webpack_module_cache__ = {};
/******/ 
/******/ // The require function
/******/ function __nccwpck_require__(moduleId) {
/******/ 	// Check if module is in cache
/******/ 	var cachedModule = __webpack_module_cache__[moduleId];
/******/ 	if (cachedModule !== undefined) {
/******/ 		return cachedModule.exports;
/******/ 	}
/******/ 	// Create a new module (and put it into the cache)
/******/ 	var module = __webpack_module_cache__[moduleId] = {
/******/ 		// no module.id needed
/******/ 		// no module.loaded needed
/******/ 		exports: {}
/******/ 	};
/******/ 
/******/ 	// Execute the module function
/******/ 	var threw = true;
/******/ 	try {
/******/ 		__webpack_modules__[moduleId](module, module.exports, __nccwpck_require__);
/******/ 		threw = false;
/******/ 	} finally {
/******/ 		if(threw) delete __webpack_module_cache__[moduleId];
/******/ 	}
/******/ 
/******/ 	// Return the exports of the module
/******/ 	return module.exports;
/******/ }
/******/ 
/************************************************************************/
/******/ /* webpack/runtime/asset-relocator-loader */
/******/ if (typeof __nccwpck_require__ !== 'undefined') __nccwpck_require__.ab = decodeURIComponent(new URL('.', import.meta.url).pathname).slice(import.meta.url.match(/^file:\/\/\/\w:/) ? 1 : 0, -1) + "/";
/******/ 
/******/ /* webpack/runtime/async module */
/******/ (() => {
/******/ 	var webpackQueues = typeof Symbol === "function" ? Symbol("webpack queues") : "__webpack_queues__";
/******/ 	var webpackExports = typeof Symbol === "function" ? Symbol("webpack exports") : "__webpack_exports__";
/******/ 	var webpackError = typeof Symbol === "function" ? Symbol("webpack error") : "__webpack_error__";
/******/ 	var resolveQueue = (queue) => {
/******/ 		if(queue && queue.d < 1) {
/******/ 			queue.d = 1;
/******/ 			queue.forEach((fn) => (fn.r--));
/******/ 			queue.forEach((fn) => (fn.r-- ? fn.r++ : fn()));
/******/ 		}
/******/ 	}
/******/ 	var wrapDeps = (deps) => (deps.map((dep) => {
/******/ 		if(dep !== null && typeof dep === "object") {
/******/ 			if(dep[webpackQueues]) return dep;
/******/ 			if(dep.then) {
/******/ 				var queue = [];
/******/ 				queue.d = 0;
/******/ 				dep.then((r) => {
/******/ 					obj[webpackExports] = r;
/******/ 					resolveQueue(queue);
/******/ 				}, (e) => {
/******/ 					obj[webpackError] = e;
/******/ 					resolveQueue(queue);
/******/ 				});
/******/ 				var obj = {};
/******/ 				obj[webpackQueues] = (fn) => (fn(queue));
/******/ 				return obj;
/******/ 			}
/******/ 		}
/******/ 		var ret = {};
/******/ 		ret[webpackQueues] = x => {};
/******/ 		ret[webpackExports] = dep;
/******/ 		return ret;
/******/ 	}));
/******/ 	__nccwpck_require__.a = (module, body, hasAwait) => {
/******/ 		var queue;
/******/ 		hasAwait && ((queue = []).d = -1);
/******/ 		var depQueues = new Set();
/******/ 		var exports = module.exports;
/******/ 		var currentDeps;
/******/ 		var outerResolve;
/******/ 		var reject;
/******/ 		var promise = new Promise((resolve, rej) => {
/******/ 			reject = rej;
/******/ 			outerResolve = resolve;
/******/ 		});
/******/ 		promise[webpackExports] = exports;
/******/ 		promise[webpackQueues] = (fn) => (queue && fn(queue), depQueues.forEach(fn), promise["catch"](x => {}));
/******/ 		module.exports = promise;
/******/ 		body((deps) => {
/******/ 			currentDeps = wrapDeps(deps);
/******/ 			var fn;
/******/ 			var getResult = () => (currentDeps.map((d) => {
/******/ 				if(d[webpackError]) throw d[webpackError];
/******/ 				return d[webpackExports];
/******/ 			}))
/******/ 			var promise = new Promise((resolve) => {
/******/ 				fn = () => (resolve(getResult));
/******/ 				fn.r = 0;
/******/ 				var fnQueue = (q) => (q !== queue && !depQueues.has(q) && (depQueues.add(q), q && !q.d && (fn.r++, q.push(fn))));
/******/ 				currentDeps.map((dep) => (dep[webpackQueues](fnQueue)));
/******/ 			});
/******/ 			return fn.r ? promise : getResult();
/******/ 		}, (err) => ((err ? reject(promise[webpackError] = err) : outerResolve(exports)), resolveQueue(queue)));
/******/ 		queue && queue.d < 0 && (queue.d = 0);
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/compat get default export */
/******/ (() => {
/******/ 	// getDefaultExport function for compatibility with non-harmony modules
/******/ 	__nccwpck_require__.n = (module) => {
/******/ 		var getter = module && module.__esModule ?
/******/ 			() => (module['default']) :
/******/ 			() => (module);
/******/ 		__nccwpck_require__.d(getter, { a: getter });
/******/ 		return getter;
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/define property getters */
/******/ (() => {
/******/ 	// define getter functions for harmony exports
/******/ 	__nccwpck_require__.d = (exports, definition) => {
/******/ 		for(var key in definition) {
/******/ 			if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 				Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 			}
/******/ 		}
/******/ 	};
/******/ })();
/******/ 
/******/ /* webpack/runtime/hasOwnProperty shorthand */
/******/ (() => {
/******/ 	__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ })();
/******/ 
/************************************************************************/
/******/ 
/******/ // startup
/******/ // Load entry module and return exports
/******/ // This entry module used 'module' so it can't be inlined
/******/ var __webpack_exports__ = __nccwpck_require__(5581);
/******/ __webpack_exports__ = await __webpack_exports__;
/******/ 
