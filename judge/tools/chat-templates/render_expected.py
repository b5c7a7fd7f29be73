#!/usr/bin/env python3
"""Renders the chat-template fixtures with Python's jinja2, independently of the judge's code path.

Reads judge/test/onnx/chat-templates/cases.json (templates and user messages, written by write-cases.ts) and each
template's .jinja file; writes expected.json: {template file: {case name: rendered prompt}}. The environment is the
one transformers' apply_chat_template uses (sandboxed, trim_blocks, lstrip_blocks, loopcontrols, its tojson and
raise_exception), without strftime_now: the judge keeps prompts date-independent.

Run (Debian: apt-get install -y python3-jinja2): /usr/bin/python3 judge/tools/chat-templates/render_expected.py
"""
import json
import os

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'test', 'onnx', 'chat-templates')


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters['tojson'] = tojson
    env.globals['raise_exception'] = raise_exception
    return env


def main():
    with open(os.path.join(FIXTURES, 'cases.json'), encoding='utf-8') as f:
        fixtures = json.load(f)
    env = environment()
    expected = {}
    for template in fixtures['templates']:
        with open(os.path.join(FIXTURES, template['file']), encoding='utf-8') as f:
            compiled = env.from_string(f.read())
        expected[template['file']] = {
            case['name']: compiled.render(
                messages=[{'role': 'user', 'content': case['content']}],
                add_generation_prompt=True,
                **template['tokens'],
            )
            for case in fixtures['cases']
        }
    with open(os.path.join(FIXTURES, 'expected.json'), 'w', encoding='utf-8') as f:
        json.dump(expected, f, indent=2, ensure_ascii=False)
        f.write('\n')


if __name__ == '__main__':
    main()
