#!/usr/bin/env python3
"""Writes pescope's man page and bash completion from the built program's own help.

    genclidocs.py --pescope PATH --version V --date YYYY-MM-DD --man OUT.1 --bash-completion OUT

Runs `pescope --help` (the window's options, the subcommand list and the presets) and
`pescope <command> --help` for every subcommand, and turns their sections into roff and a bash
completion function. Nothing here lists an option: whatever the option tables give --help
is what the man page and the completion contain, so they cannot drift from the program.
Build time only (cmake/Install.cmake runs it with QT_QPA_PLATFORM=offscreen).
"""

import argparse
import os
import re
import subprocess
import sys


class HelpError(Exception):
    pass


def run_help(pescope, args):
    result = subprocess.run([pescope, *args, "--help"], capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        raise HelpError(f"`pescope {' '.join(args)} --help` exited {result.returncode}: "
                        f"{result.stderr.strip()}")
    return result.stdout


def parse_help(text):
    """QCommandLineParser's help: Usage line, description, 'Options:' and 'Arguments:'."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("Usage:"):
        raise HelpError("help text does not start with 'Usage:'")
    description, options, arguments = [], [], []
    section = description
    for line in lines[1:]:
        if line == "Options:":
            section = options
            continue
        if line == "Arguments:":
            section = arguments
            continue
        section.append(line)

    def entries(block, is_option):
        found = []
        for line in block:
            if not line.strip():
                continue
            # An entry starts two spaces in; its wrapped description lines are indented further.
            start = re.match(r"^  (\S.*?)(?:\s{2,}(.*))?$", line)
            if start and not line.startswith("   "):
                found.append({"names": start.group(1), "help": start.group(2) or ""})
            elif found:
                found[-1]["help"] = (found[-1]["help"] + " " + line.strip()).strip()
        for entry in found:
            if is_option:
                spec = entry["names"]
                value = re.search(r"<([^>]*)>", spec)
                entry["value"] = value.group(1) if value else None
                entry["flags"] = re.findall(r"(--?[A-Za-z0-9][A-Za-z0-9.-]*)", spec.split("<")[0])
        return found

    while description and not description[-1].strip():
        description.pop()
    return {
        "description": description,
        "options": entries(options, True),
        "arguments": entries(arguments, False),
    }


def subcommands(description):
    for line in description:
        match = re.match(r"^Subcommands[^:]*:\s*(.+?)\.?\s*$", line)
        if match:
            names = [n.strip() for n in match.group(1).split(",")]
            if names and all(re.fullmatch(r"[a-z][a-z0-9-]*", n) for n in names):
                return names
    raise HelpError("`pescope --help` names no subcommands (a line 'Subcommands ...: a, b, c.')")


def presets(description):
    found, inside = [], False
    for line in description:
        if line.startswith("Presets"):
            inside = True
            continue
        if inside:
            match = re.match(r"^  (\S+)\s+(.*)$", line)
            if not match:
                break
            found.append((match.group(1), match.group(2)))
    return found


def paragraphs(description, skip):
    """Description lines grouped into paragraphs, leaving out those that start with `skip`."""
    result, current = [], []
    for line in description + [""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            if not current[0].startswith(skip):
                result.append(" ".join(current))
            current = []
    return result


# roff ------------------------------------------------------------------------------------------

def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + l) if l.startswith((".", "'")) else l for l in text.split("\n"))


def roff_option(option):
    names = ", ".join(f"\\fB{roff(flag)}\\fR" for flag in option["flags"])
    if option["value"]:
        names += f" \\fI{roff(option['value'])}\\fR"
    return f".TP\n{names}\n{roff(option['help'])}\n"


def man_page(version, date, top, commands, preset_list):
    out = [f'.TH PESCOPE 1 "{date}" "pescope {version}" "User Commands"\n.nh\n.ad l\n']
    out.append(".SH NAME\npescope \\- a microscope for transformer positional encodings\n")
    out.append(".SH SYNOPSIS\n.B pescope\n[\\fIoptions\\fR] [\\fIFILE\\fR]\n.br\n")
    for name in commands:
        out.append(f".B pescope {name}\n[\\fIoptions\\fR]\n.br\n")
    out.append(".SH DESCRIPTION\n")
    for p in paragraphs(top["description"], ("Subcommands", "Presets")):
        out.append(f".PP\n{roff(p)}\n")
    out.append(".PP\nEach subcommand runs without a display. "
               "\\fBpescope\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR lists its options.\n")
    out.append(".SH OPTIONS\nWithout a subcommand pescope opens the explorer window.\n")
    for option in top["options"]:
        out.append(roff_option(option))
    for argument in top["arguments"]:
        out.append(f".TP\n\\fI{roff(argument['names'].strip('[]'))}\\fR\n"
                   f"{roff(argument['help'])}\n")
    out.append(".SH COMMANDS\n")
    for name, parsed in commands.items():
        out.append(f'.SS "pescope {name}"\n')
        for p in paragraphs(parsed["description"], ()):
            out.append(f".PP\n{roff(p)}\n")
        for option in parsed["options"]:
            out.append(roff_option(option))
    if preset_list:
        out.append(".SH PRESETS\nNames for \\fB\\-\\-preset\\fR:\n")
        for name, title in preset_list:
            out.append(f".TP\n\\fB{roff(name)}\\fR\n{roff(title)}\n")
    out.append(
        ".SH EXIT STATUS\n"
        ".TP\n0\nSuccess.\n"
        ".TP\n1\nA failure while working (I/O, GPU); no output file is left behind.\n"
        ".TP\n2\nBad usage or an invalid value; one line on standard error names the option.\n")
    out.append(
        ".SH ENVIRONMENT\n"
        ".TP\n\\fBPE_CPU_KERNELS\\fR\n"
        "\\fBavx512\\fR, \\fBavx2\\fR, \\fBsse2\\fR or \\fBauto\\fR (the default): the "
        "instruction set of the CPU kernels. \\fBpescope \\-\\-version\\fR names the one in "
        "use.\n"
        ".TP\n\\fBQT_QPA_PLATFORM\\fR\n"
        "Qt's platform plugin; subcommands use \\fBoffscreen\\fR when no display is set.\n")
    out.append(".SH SEE ALSO\n\\fBpython3\\fR(1); numpy.load reads the .npy files pescope "
               "writes.\n")
    return "".join(out)


# bash completion -------------------------------------------------------------------------------

def shell_words(words):
    return " ".join(words)


def value_kind(option):
    """How to complete an option's value: presets, files, a fixed list, or nothing."""
    value = option["value"]
    if value is None:
        return None
    if "--preset" in option["flags"]:
        return ("presets", None)
    if "|" in value:
        return ("words", value.split("|"))
    if re.search(r"FILE|PATH|DIR|\.[a-z]{2,4}\b", value):
        return ("files", None)
    return ("any", None)


def completion(top, commands, preset_list):
    def case_for(name, parsed):
        flags = [f for o in parsed["options"] for f in o["flags"] if f.startswith("--")]
        lines = [f"    {name})", f'        opts="{shell_words(flags)}"']
        files, anything, words = [], [], []
        for o in parsed["options"]:
            kind = value_kind(o)
            if kind is None:
                continue
            long_flags = [f for f in o["flags"] if f.startswith("--")]
            if kind[0] == "files":
                files += long_flags
            elif kind[0] == "words":
                words.append((long_flags, kind[1]))
            elif kind[0] == "presets":
                words.append((long_flags, ["$presets"]))
            else:
                anything += long_flags
        lines.append('        case "$prev" in')
        for flags_, choices in words:
            lines.append(f'        {"|".join(flags_)}) COMPREPLY=($(compgen -W "{" ".join(choices)}"'
                         ' -- "$cur")); return ;;')
        if files:
            lines.append(f'        {"|".join(files)}) _pescope_files; return ;;')
        if anything:
            lines.append(f'        {"|".join(anything)}) return ;;')
        lines.append("        esac")
        lines.append("        ;;")
        return "\n".join(lines)

    body = [case_for(name, parsed) for name, parsed in commands.items()]
    body.append(case_for('""', top))
    return f"""# bash completion for pescope: subcommands, options and preset names.
# Generated at build time from `pescope --help` by resources/tools/genclidocs.py; do not edit.

_pescope_files()
{{
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
}}

_pescope()
{{
    local cur=${{COMP_WORDS[COMP_CWORD]}}
    local prev=
    [ "$COMP_CWORD" -gt 0 ] && prev=${{COMP_WORDS[COMP_CWORD-1]}}
    local commands="{shell_words(commands)}"
    local presets="{shell_words(name for name, _ in preset_list)}"
    local command= opts=
    COMPREPLY=()
    # Subcommands come first: `pescope data ...`; anything else is the window's options.
    if [ "$COMP_CWORD" -gt 1 ] && [[ " $commands " == *" ${{COMP_WORDS[1]}} "* ]]; then
        command=${{COMP_WORDS[1]}}
    fi
    case "$command" in
{chr(10).join(body)}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [ -z "$command" ]; then
        # A session file for the window, or first a subcommand.
        _pescope_files
        [ "$COMP_CWORD" -eq 1 ] && COMPREPLY+=($(compgen -W "$commands" -- "$cur"))
    fi
}}
complete -F _pescope pescope
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pescope", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--date", required=True)
    parser.add_argument("--man", required=True)
    parser.add_argument("--bash-completion", required=True)
    args = parser.parse_args()
    try:
        top = parse_help(run_help(args.pescope, []))
        commands = {name: parse_help(run_help(args.pescope, [name]))
                    for name in subcommands(top["description"])}
        for name, parsed in commands.items():
            if not parsed["options"]:
                raise HelpError(f"`pescope {name} --help` lists no options")
        preset_list = presets(top["description"])
        for path, text in ((args.man, man_page(args.version, args.date, top, commands,
                                                preset_list)),
                           (args.bash_completion, completion(top, commands, preset_list))):
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    except (HelpError, OSError, subprocess.TimeoutExpired) as error:
        print(f"genclidocs.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
