"""The one secret detector: what it must hide and what it must leave alone.

Each ``HIDDEN`` case is a text and the secret inside it: after
``scrub_secrets`` the secret (and any 8-character slice of it) is gone and
``[credential]`` stands in its place. Each ``KEPT`` case is a look-alike that
must come back unchanged, character for character, because session events
keep tool output whole and a false hit corrupts code, hashes or prose.

All the secrets below are fabricated (random characters in the right shape).
"""

from __future__ import annotations

import json

import pytest

from hookspecs.scrub import CREDENTIAL, scrub_secrets, scrub_text

_GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
_PEM_BODY = "MIIEowIBAAKCAQEA7dZq3uXl9Ykq2Vq0nqk6y3zB1QwQyq8s4Zb2u4yqJ0pQ1x1a\nq9kT7Yx2h3W4pQ8vL0mN5bR6cT1dE2fG3hJ4kL5mN6oP7qR8sT9uV0wX1yZ2aB3c"
_PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{_PEM_BODY}\n-----END RSA PRIVATE KEY-----"


# (id, text, the secret that must not survive)
HIDDEN: list[tuple[str, str, str]] = [
    ("json api_key", '{"api_key": "Zx81kQ2mLp09vNbT"}', "Zx81kQ2mLp09vNbT"),
    ("json client_secret", '{"client_id": "app", "client_secret": "q8Wd-3kPzL0vYt2n"}', "q8Wd-3kPzL0vYt2n"),
    ("json access_token", '{"access_token":"ya29.a0AfH6SMBx7Kq"}', "ya29.a0AfH6SMBx7Kq"),
    ("json private_key", '"private_key": "f00dfacecafe1234beef"', "f00dfacecafe1234beef"),
    ("yaml api_key", "provider:\n  api_key: Hq7Lw2Rz9Vb3Nc8X\n", "Hq7Lw2Rz9Vb3Nc8X"),
    ("yaml quoted password", "db:\n  password: 'S3cr3t!Pass'\n", "S3cr3t!Pass"),
    ("env OPENAI_API_KEY", "OPENAI_API_KEY=Tq3vX9pLm2Kd8RwZ\nDEBUG=1\n", "Tq3vX9pLm2Kd8RwZ"),
    ("env export DB_PASSWORD", "export DB_PASSWORD=hunter2hunter2\n", "hunter2hunter2"),
    ("libpq PGPASSWORD", "PGPASSWORD=hunter2hunter2 psql -h db", "hunter2hunter2"),
    ("env quoted SECRET_KEY", 'SECRET_KEY="d9f8g7h6j5k4l3m2"\n', "d9f8g7h6j5k4l3m2"),
    ("ini password", "[database]\nuser = app\npassword = Pl4intextPw\n", "Pl4intextPw"),
    ("kotlin-ish auth_token", "auth_token = 'Rk2Jd8Lq0Zp4Xv6'", "Rk2Jd8Lq0Zp4Xv6"),
    ("aws key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws session key id", "id ASIAY34FZKBOKMUTVV7A in use", "ASIAY34FZKBOKMUTVV7A"),
    (
        "aws secret",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("github ghp", f"remote uses {_GHP} now", _GHP),
    ("github gho", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("github ghs", "GITHUB=ghs_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5", "ghs_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"),
    (
        "github fine-grained",
        "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        "11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJ",
    ),
    ("gitlab", "CI token glpat-xY9zA8bC7dE6fG5hI4jK", "glpat-xY9zA8bC7dE6fG5hI4jK"),
    (
        "slack bot",
        "SLACK xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    ("slack user", "xoxp-1234567890-0987654321-1122334455-abcdef1234567890", "0987654321-1122334455-abcdef1234567890"),
    ("slack app", "xapp-1-A0123456789-1234567890123-abcdef0123456789", "A0123456789-1234567890123-abcdef0123456789"),
    (
        "slack webhook",
        "curl https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    ("stripe live", "stripe.api_key('sk_live_4eC39HqLyjWDarjtT1zdp7dc')", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe restricted", "rk_live_51H8abcdefGHIJKLmnopQRST", "51H8abcdefGHIJKLmnopQRST"),
    ("stripe test", "key sk_test_26PHem9AhJZvU623DfE1x4sd", "26PHem9AhJZvU623DfE1x4sd"),
    ("google", "maps?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&x=1", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("openai sk", "client = OpenAI('sk-4f9aT2kLmQ8zXw3vB7nR1pY6')", "4f9aT2kLmQ8zXw3vB7nR1pY6"),
    ("openai project", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34"),
    ("anthropic", "ANTHROPIC sk-ant-api03-Zy98Xw76Vu54Ts32Rq10-AAAA", "Zy98Xw76Vu54Ts32Rq10"),
    ("jwt", f"cookie session={_JWT}; path=/", _JWT),
    ("pem block", f"here:\n{_PEM}\ndone", _PEM_BODY.split("\n")[1]),
    ("pem in escaped json", json.dumps({"k": _PEM})[1:-1], "7dZq3uXl9Ykq2Vq0nqk6y3zB1QwQyq8s4Zb2u4yqJ0pQ1x1a"),
    ("pem without end", f"{_PEM[:120]}", "7dZq3uXl9Ykq2Vq0nqk6y3zB1QwQyq8s4Zb2u4yq"),
    (
        "openssh pem",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ),
    ("url password", "git clone https://alice:Sup3rS3cretPw@github.com/org/repo.git", "Sup3rS3cretPw"),
    ("postgres url", "DATABASE_URL=postgres://app:Pg-Pa55w0rd@db.internal:5432/app", "Pg-Pa55w0rd"),
    ("bearer header", "Authorization: Bearer 9f8e7d6c5b4a3928", "9f8e7d6c5b4a3928"),
    ("basic header", "authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "YWxhZGRpbjpvcGVuc2VzYW1l"),
    ("token header", "-H 'Authorization: token 0a1b2c3d4e5f6a7b8c9d'", "0a1b2c3d4e5f6a7b8c9d"),
    ("json header", '{"Authorization": "Bearer abc.def.ghi123456"}', "abc.def.ghi123456"),
    ("x-api-key header", "x-api-key: 5ecr3tHeaderVa1ue", "5ecr3tHeaderVa1ue"),
    ("escaped json api_key", '{\\"api_key\\": \\"Vb7Nm3Kq9Lp2Wx5Z\\"}', "Vb7Nm3Kq9Lp2Wx5Z"),
    ("python kwarg", 'connect(host="db", password="c0rrect-h0rse")', "c0rrect-h0rse"),
]


# (id, text) — must come back exactly as given
KEPT: list[tuple[str, str]] = [
    ("git sha", "commit 9eab810c3f2d4e5b6a7980c1d2e3f4a5b6c7d8e9"),
    ("short sha", "HEAD is now at 9eab810 hookspecs: scrub"),
    ("uuid", "session 47bfd9da-1c2e-4f3a-9b8c-7d6e5f4a3b2c opened"),
    (
        "base64 image",
        '{"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}',
    ),
    (
        "npm integrity",
        '"integrity": "sha512-Gx6f5oX8aKz3pQmZbRnHWq5hE1vV0bB8yT0eTgDj2M3TzHfL3QKkvDyv8JpR1wWZ3mK2sF6oYhN4tC7nXe5uQ=="',
    ),
    ("poetry hash", 'hash = "sha256:4f1c9b2a7d3e5f6a8b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a"'),
    ("pip hash", "requests==2.31.0 --hash=sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f"),
    ("npm version", '"dependencies": {"react": "^18.2.0", "typescript": "~5.4.5"}'),
    ("long unkeyed base64", "blob: " + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo" * 3),
    ("token_count", '{"token_count": 1234, "model": "gpt-4o"}'),
    ("tokens", "tokens: 12\nmax_tokens=4096"),
    ("max_tokens kwarg", "client.create(model=m, max_tokens=4096, temperature=0)"),
    ("input_tokens json", '{"usage": {"input_tokens": 812, "output_tokens": 96}}'),
    ("passwordless", "Passwordless sign-in is enabled for this secretary."),
    ("secretary", "The secretary keeps the minutes."),
    ("tokenizer", "tokenizer = AutoTokenizer.from_pretrained(name)"),
    ("posix path", "/home/me/project/src/secrets/loader.py:12"),
    ("windows path", "C:\\Users\\me\\AppData\\Local\\token_cache"),
    ("prose", "Keys and tokens should never be committed; rotate the secret if it leaks."),
    ("python annotation", "def login(user: str, password: str) -> Token:"),
    ("python passthrough", "client = Client(api_key=api_key, token=self.token)"),
    ("env reference", 'password: "${DB_PASSWORD}"'),
    ("url without password", "see https://user@example.com/path?q=1 and https://example.com:8443/x"),
    ("sk word", "task-manager and disk-usage-report are fine"),
    ("aws-like lowercase", "akiaiosfodnn7example is just lowercase text"),
    ("eyJ alone", "the prefix eyJ starts many base64 JSON blobs"),
    ("pem public key", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----"),
    ("stripe publishable", "pk_live_51H8abcdefGHIJKLmnopQRST"),
    ("keyword empty value", 'api_key = ""'),
    ("json keys only", '{"secret_name": "prod-db", "token_type": "bearer"}'),
]


@pytest.mark.parametrize(("text", "secret"), [(t, s) for _, t, s in HIDDEN], ids=[i for i, _, _ in HIDDEN])
def test_secret_is_hidden(text: str, secret: str) -> None:
    out = scrub_secrets(text)
    assert secret not in out, out
    assert CREDENTIAL in out, out


@pytest.mark.parametrize("text", [t for _, t in KEPT], ids=[i for i, _ in KEPT])
def test_look_alike_is_kept(text: str) -> None:
    assert scrub_secrets(text) == text


@pytest.mark.parametrize(("text", "secret"), [(t, s) for _, t, s in HIDDEN], ids=[i for i, _, _ in HIDDEN])
def test_scrub_text_uses_the_same_detector(text: str, secret: str) -> None:
    assert secret not in scrub_text(text, limit=None)


def test_there_are_enough_cases() -> None:
    assert len(HIDDEN) >= 25 and len(KEPT) >= 25


@pytest.mark.parametrize(
    "hostile",
    [
        "a-" * 100_000,  # every "-" could start a name scan
        "token" * 50_000,
        "x_" * 100_000 + "=",
        "eyJ-" * 50_000,
        "://:" * 50_000,
        "-----BEGIN RSA PRIVATE KEY-----" * 5_000,
        "Bearer " + " " * 100_000,
        "password" + " " * 100_000,
    ],
    ids=["dashes", "token-run", "underscores", "jwt-heads", "url-heads", "pem-heads", "bearer-space", "name-space"],
)
def test_hostile_input_finishes(hostile: str) -> None:
    # with a quadratic pattern one of these would not finish within the test run
    scrub_secrets(hostile)


def test_a_registered_secret_is_hidden_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookspecs import secrets_detect

    monkeypatch.setattr(secrets_detect, "_KNOWN", secrets_detect._KnownSecrets())
    key = "dsk-7d1f0c9e4b2a8f6e5d3c1b0a"
    assert secrets_detect.register_secret(key)
    assert scrub_secrets(f"echo {key[4:20]} back") == f"echo {CREDENTIAL} back"
    assert key[4:] not in scrub_text(f"id {key}", limit=None)


def test_a_short_dummy_key_is_not_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    from hookspecs import secrets_detect

    monkeypatch.setattr(secrets_detect, "_KNOWN", secrets_detect._KnownSecrets())
    assert not secrets_detect.register_secret("ollama")
    assert scrub_secrets("ollama serve") == "ollama serve"


@pytest.mark.parametrize(
    "text", [t for _, t, _ in HIDDEN] + [t for _, t in KEPT], ids=[i for i, _, _ in HIDDEN] + [i for i, _ in KEPT]
)
def test_trying_rules_at_gate_hits_finds_what_scanning_everywhere_finds(text: str) -> None:
    # the fast path (ASCII text, rules tried only where the gate hit) must
    # agree with every rule scanning the whole text
    from hookspecs import secrets_detect

    data = text.encode()
    assert sorted(secrets_detect._spans_at_hits(text, data)) == sorted(secrets_detect._spans_everywhere(text))
