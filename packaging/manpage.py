"""Writes tokencache(1), a roff man page, from what the CLI's argument parser says about itself.

    tokencache --experimental-dump-help | python3 packaging/manpage.py VERSION DATE > tokencache.1

Every command, option and argument comes from the parser's JSON description (swift-argument-parser's
`--experimental-dump-help`), so the page cannot drift from the CLI. Hidden commands and options,
and the generated `help` command, are left out.
"""

import json
import sys


def roff(text):
    """Text escaped for roff: backslashes, and a leading dot or quote that would start a request."""
    lines = []
    for line in text.replace("\\", "\\e").replace("-", "\\-").splitlines():
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def paragraphs(text):
    return "\n.PP\n".join(roff(part.strip()) for part in text.split("\n\n") if part.strip())


def name_of(name):
    return ("-" if name["kind"] in ("short", "longWithSingleDash") else "--") + name["name"]


def synopsis_of(argument):
    value = "<%s>" % argument.get("valueName", "value")
    if argument["kind"] == "positional":
        text = value
    else:
        text = name_of(argument["preferredName"])
        if argument["kind"] == "option":
            text += " " + value
    if argument.get("isRepeating"):
        text += " ..."
    return "[%s]" % text if argument.get("isOptional") else text


def visible(items):
    return [item for item in items or [] if item.get("shouldDisplay", True)]


def arguments_section(arguments):
    out = []
    for argument in visible(arguments):
        if argument["kind"] == "positional":
            label = "<%s>" % argument.get("valueName", "value")
        else:
            names = [name_of(name) for name in argument.get("names", [])]
            label = ", ".join(names)
            if argument["kind"] == "option":
                label += " <%s>" % argument.get("valueName", "value")
        out.append(".TP\n\\fB%s\\fR" % roff(label))
        text = argument.get("abstract", "")
        if argument.get("defaultValue"):
            text += " (default: %s)" % argument["defaultValue"]
        if argument.get("allValues"):
            text += " (values: %s)" % ", ".join(argument["allValues"])
        out.append(roff(text) if text else "")
        if argument.get("discussion"):
            out.append(".IP\n" + paragraphs(argument["discussion"]))
    return out


def command_sections(command, path):
    out = []
    for sub in visible(command.get("subcommands")):
        if sub["commandName"] == "help":
            continue
        sub_path = path + [sub["commandName"]]
        usage = " ".join(sub_path + [synopsis_of(a) for a in visible(sub.get("arguments"))
                                     if a["kind"] != "flag" or a["preferredName"]["name"] not in ("help", "version")])
        out.append(".SS %s" % roff(" ".join(sub_path)))
        if sub.get("abstract"):
            out.append(roff(sub["abstract"]))
        out.append(".PP\n\\fB%s\\fR" % roff(usage))
        if sub.get("discussion"):
            out.append(".PP\n" + paragraphs(sub["discussion"]))
        options = arguments_section(
            [a for a in sub.get("arguments", []) if a.get("preferredName", {}).get("name") not in ("help", "version")])
        if options:
            out.append(".PP\nOptions and arguments:\n.RS")
            out.extend(options)
            out.append(".RE")
        out.extend(command_sections(sub, sub_path))
    return out


def manpage(dump, version, date):
    command = dump["command"]
    name = command["commandName"]
    out = [
        '.TH %s 1 "%s" "%s %s" "User Commands"' % (name.upper(), date, name, version),
        ".SH NAME",
        "%s \\- %s" % (name, roff(command.get("abstract", ""))),
        ".SH SYNOPSIS",
        "\\fB%s\\fR [\\fIoptions\\fR] \\fIcommand\\fR [\\fIargument\\fR ...]" % name,
        ".SH DESCRIPTION",
    ]
    if command.get("discussion"):
        out.append(paragraphs(command["discussion"]))
    out.append(".SH OPTIONS")
    out.extend(arguments_section(command.get("arguments")))
    out.append(".SH COMMANDS")
    out.extend(command_sections(command, [name]))
    out.append(".SH SEE ALSO")
    out.append("Run \\fB%s help\\fR \\fIcommand\\fR for a command's help as the program prints it." % name)
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tokencache --experimental-dump-help | python3 manpage.py VERSION DATE")
    try:
        dump = json.load(sys.stdin)
    except json.JSONDecodeError as error:
        sys.exit("manpage: the parser's description on standard input is not JSON: line %d column %d: %s"
                 % (error.lineno, error.colno, error.msg))
    sys.stdout.write(manpage(dump, sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
