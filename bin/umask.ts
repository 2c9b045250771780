// The CLI's first import: every file and directory any command creates, and any child process it
// starts (the embedded database's), is owner-only (0600 files, 0700 directories) unless a mode says
// otherwise — MARQUEE_HOME holds the platform database, keys and webhook secrets, and another account
// on the machine must read none of it (docs/reliability.md "What an attacker on the machine can do").
// A snapshot store shared with another account on purpose takes a default ACL, which the umask does
// not override (docs/operation.md "Sharing a directory store").
process.umask(0o077);
