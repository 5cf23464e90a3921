"""Credentials known by their shape: vendor API keys and tokens that a user pastes into a
chat ("here's the key, ghp_…", "AKIA…", "xoxb-…") with or without saying what it is.

The shapes are detect-secrets' (Yelp's maintained list of vendor formats); only the
plugins whose pattern is the credential itself are used. The ones that match a setting's
name and value in a config file, high-entropy strings in general (order ids, commit
hashes and UUIDs are high-entropy too) and public IP addresses are not: chat is not a
config file, and those are not secrets a user gives. A PEM private key is taken whole,
from its BEGIN line to its END line, not only the header the plugin looks for.
"""

from __future__ import annotations

import re
from functools import cache

from .placeholders import PLACEHOLDER_RX

__all__ = ["credential_spans"]

_PEM = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
                  r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)
# Shapes detect-secrets 1.5 does not know yet: OpenAI project, service-account and admin
# keys, Anthropic keys, Google API keys, Hugging Face tokens, GitHub fine-grained tokens.
_NEWER = tuple(re.compile(p) for p in (
    r"(?<![A-Za-z0-9])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
    r"(?<![A-Za-z0-9])sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}",
    r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}",
    r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}",
    r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{22,}",
    # the key shape most LLM APIs share (DashScope, DeepSeek, Moonshot …): sk- and 24 more
    r"(?<![A-Za-z0-9])sk-[A-Za-z0-9]{24,}(?![A-Za-z0-9])",
    # a URL's password, the user name empty or not ("redis://:pw@host", "postgres://u:pw@")
    r"(?i)\b[a-z][a-z0-9+.-]{0,20}://[^\s/:@]{0,64}:([^\s/@]{4,})@",
    # a URL parameter named as a credential ("…&appid=…", "?access_token=…"): a long value
    # of letters and digits, not "?key=summer-sale" or "&token=nextpage2"
    r"(?i)[?&](?:api[_-]?key|apikey|app[_-]?id|app[_-]?key|app[_-]?secret|access[_-]?token|"
    r"token|key|secret|client[_-]?secret|auth|sig|signature)="
    r"((?=[^&\s#]{0,200}\d)(?=[^&\s#]{0,200}[A-Za-z])[^&\s#]{20,})",
    # a webhook's own path, a long one of letters and digits ("/hook/ea4e…-937d…"; not
    # "/hooks/useSyncExternalStore")
    r"(?i)/(?:hooks?|webhooks?)/(?:[a-z0-9]+/)?"
    r"((?=[A-Za-z0-9_-]{0,100}\d)(?=[A-Za-z0-9_-]{0,100}[A-Za-z])[A-Za-z0-9_-]{20,})"))
# A group this long inside a plugin's pattern is the value itself (the password in
# "https://user:pass@host", an AWS secret key after its name); a short one is a prefix
# ("ghp"), and the whole match is the credential.
_VALUE_GROUP = 4
# The rest of the token after a shape's match: the patterns fix a minimum length (a JWT's
# header and payload, 24 characters of a Stripe key), real keys run on.
_TAIL = re.compile(r"[A-Za-z0-9_\-+/=]*")
# A run of non-space this long is no credential a person pastes (a PEM key is taken by
# its own pattern first); blanked before the shapes are tried, so that no shape retries a
# megabyte of "sk-sk-sk-…" from every position.
_LONGEST_TOKEN = 1024
_LONG_RUN = re.compile(rf"\S{{{_LONGEST_TOKEN + 1},}}")


@cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    # Imported on first use: detect_secrets' package import costs ~0.1 s, and most
    # processes that import memvault never scan a message.
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.discord import DiscordBotTokenDetector
    from detect_secrets.plugins.github_token import GitHubTokenDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.npm import NpmDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector
    from detect_secrets.plugins.stripe import StripeDetector
    from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
    from detect_secrets.plugins.twilio import TwilioKeyDetector

    plugins = (AWSKeyDetector, AzureStorageKeyDetector, BasicAuthDetector,
               DiscordBotTokenDetector, GitHubTokenDetector, GitLabTokenDetector,
               JwtTokenDetector, MailchimpDetector, NpmDetector, OpenAIDetector,
               PypiTokenDetector, SendGridDetector, SlackDetector, SquareOAuthDetector,
               StripeDetector, TelegramBotTokenDetector, TwilioKeyDetector)
    return (*_NEWER, *(rx for p in plugins for rx in p().denylist))


def credential_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every credential in `text` known by its shape, non-overlapping,
    in order."""
    found = [m.span() for m in _PEM.finditer(text)]
    text = _LONG_RUN.sub(lambda m: " " * len(m.group()), text)
    for rx in _patterns():
        for m in rx.finditer(text):
            lo, hi = m.span()
            groups = [g for g in range(1, (rx.groups or 0) + 1)
                      if m.group(g) and len(m.group(g)) >= _VALUE_GROUP]
            if groups:
                lo, hi = m.span(groups[0])
            hi = _TAIL.match(text, hi).end()  # type: ignore[union-attr]
            if hi > lo and not PLACEHOLDER_RX.fullmatch(text, lo, hi):  # redacted already
                found.append((lo, hi))
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(found, key=lambda s: (s[0], -s[1])):
        if out and lo < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))  # overlapping shapes: one span
        else:
            out.append((lo, hi))
    return out
