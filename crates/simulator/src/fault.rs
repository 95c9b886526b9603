//! The failures a simulated BMC can be told to show, and their command-line syntax.

use super::tree::Patch;

/// A failure to inject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// The first N requests answer 503 with `Retry-After: 1`.
    Unavailable(u32),
    /// Session logins answer 503 with iDRAC's RAC0218 (maximum sessions reached).
    SessionLimit,
    /// `$expand` answers 501.
    NoExpand,
    /// The body of this URI is cut in half.
    Truncate(String),
    /// The body of this URI is padded past 32 MiB.
    Oversize(String),
    /// This URI redirects to itself.
    RedirectLoop(String),
    /// This URI never answers (a GET of it, or the session login POST when it is
    /// `/redfish/v1/SessionService/Sessions`).
    Hang(String),
    /// This URI answers this status with a Redfish error body.
    Status(u16, String),
    /// Every session is forgotten when request N arrives (a BMC reset, or its session
    /// timeout): requests with the old token answer 401.
    ExpireSessions(u32),
    /// Only the first N session logins succeed; later ones answer 401 (a locked account).
    Logins(u32),
    /// Nothing listens on the BMC's address: connections are refused, as of a BMC that is
    /// powered off or unreachable. Its address is still planned (and written to an inventory).
    Down,
    /// Session logins open their session at once but answer only after this many seconds:
    /// a client that stops waiting leaves the session to be deleted later.
    SlowLogin(u64),
    /// The BMC accepts connections but never answers any request, login included: a hung
    /// BMC. Only the simulator's own `/driftgate/requests` still answers.
    HangAll,
    /// Session logins answer with this URI in their `Location` header (the session is still
    /// created, and named in the answer's body, at its own URI): a BMC that would have the
    /// client delete another of its resources at logout.
    SessionLocation(String),
    /// The body of the patch's URI gives the key its pointer names a second time, after the
    /// first, holding the patch's value: a document that says two things at once.
    DuplicateKey(Patch),
    /// Every answer waits this many milliseconds instead of `--latency`: one slow BMC in a
    /// fleet (some answer in 3–23 s).
    Latency(u64),
    /// A PATCH or POST (a session login excepted) is taken at once but answered only after
    /// this many milliseconds: a write still in flight when its client is stopped has
    /// reached the BMC.
    SlowWrite(u64),
    /// A PATCH or POST of the first URI answers `307 Temporary Redirect` to the second (a
    /// settings object to an account, a system's reset to the manager's): a client that
    /// follows it writes what it never planned to.
    RedirectWrite(String, String),
    /// The path of every request is percent-decoded (`%2F` too) and its dot segments resolved
    /// before it is routed, as some BMC web servers do: `…/..%2F..%2FAccountService` reaches
    /// the accounts.
    DecodePaths,
}

impl Fault {
    /// Parses `unavailable=N`, `session-limit`, `expire-sessions=N`, `logins=N`,
    /// `slow-login=SECONDS`, `no-expand`,
    /// `truncate=URI`, `oversize=URI`, `redirect-loop=URI`, `hang=URI`, `status=CODE:URI`,
    /// `down`, `hang-all`, `session-location=URI`, `duplicate-key=URI#/POINTER=VALUE`,
    /// `latency=MS`, `slow-write=MS`, `redirect-write=URI->LOCATION` or `decode-paths`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (kind, arg) = text
            .split_once('=')
            .map_or((text, None), |(k, a)| (k, Some(a)));
        let uri = || {
            arg.filter(|a| a.starts_with("/redfish/v1"))
                .map(|a| a.trim_end_matches('/').to_owned())
                .ok_or_else(|| format!("{text:?}: {kind} needs =/redfish/v1/…"))
        };
        let bare = |fault: Fault| match arg {
            None => Ok(fault),
            Some(_) => Err(format!("{text:?}: {kind} takes no =VALUE")),
        };
        match kind {
            "unavailable" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::Unavailable)
                .ok_or_else(|| format!("{text:?}: unavailable needs =COUNT")),
            "session-limit" => bare(Fault::SessionLimit),
            "expire-sessions" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::ExpireSessions)
                .ok_or_else(|| format!("{text:?}: expire-sessions needs =REQUEST")),
            "logins" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::Logins)
                .ok_or_else(|| format!("{text:?}: logins needs =COUNT")),
            "slow-login" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::SlowLogin)
                .ok_or_else(|| format!("{text:?}: slow-login needs =SECONDS")),
            "no-expand" => bare(Fault::NoExpand),
            "truncate" => Ok(Fault::Truncate(uri()?)),
            "oversize" => Ok(Fault::Oversize(uri()?)),
            "redirect-loop" => Ok(Fault::RedirectLoop(uri()?)),
            "hang" => Ok(Fault::Hang(uri()?)),
            "status" => {
                let (code, rest) = arg
                    .and_then(|a| a.split_once(':'))
                    .ok_or_else(|| format!("{text:?}: status needs =CODE:URI"))?;
                let code: u16 = code
                    .parse()
                    .ok()
                    .filter(|c| (400..600).contains(c))
                    .ok_or_else(|| format!("{text:?}: CODE must be 400-599"))?;
                if !rest.starts_with("/redfish/v1") {
                    return Err(format!("{text:?}: status needs =CODE:/redfish/v1/…"));
                }
                Ok(Fault::Status(code, rest.trim_end_matches('/').to_owned()))
            }
            "down" => bare(Fault::Down),
            "hang-all" => bare(Fault::HangAll),
            "session-location" => Ok(Fault::SessionLocation(uri()?)),
            "latency" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::Latency)
                .ok_or_else(|| format!("{text:?}: latency needs =MILLISECONDS")),
            "decode-paths" => bare(Fault::DecodePaths),
            "redirect-write" => arg
                .and_then(|a| a.split_once("->"))
                .filter(|(from, to)| from.starts_with("/redfish/v1") && to.starts_with('/'))
                .map(|(from, to)| {
                    Fault::RedirectWrite(from.trim_end_matches('/').to_owned(), to.to_owned())
                })
                .ok_or_else(|| format!("{text:?}: redirect-write needs =/redfish/v1/…->/LOCATION")),
            "duplicate-key" => arg
                .and_then(|a| Patch::parse(a).ok())
                .filter(|p| p.uri.starts_with("/redfish/v1") && p.pointer.len() > 1)
                .map(Fault::DuplicateKey)
                .ok_or_else(|| {
                    format!("{text:?}: duplicate-key needs =/redfish/v1/…#/POINTER=VALUE")
                }),
            "slow-write" => arg
                .and_then(|a| a.parse().ok())
                .map(Fault::SlowWrite)
                .ok_or_else(|| format!("{text:?}: slow-write needs =MILLISECONDS")),
            _ => Err(format!("{text:?}: unknown fault ({})", Fault::SYNTAX)),
        }
    }

    /// Every fault's syntax, for help texts and messages.
    pub const SYNTAX: &'static str = "unavailable=N, session-limit, expire-sessions=N, logins=N, slow-login=SECONDS, no-expand, truncate=URI, oversize=URI, redirect-loop=URI, hang=URI, status=CODE:URI, down, hang-all, session-location=URI, duplicate-key=URI#/POINTER=VALUE, latency=MS, slow-write=MS, redirect-write=URI->LOCATION, decode-paths";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_bad_ones_say_why() {
        assert_eq!(Fault::parse("unavailable=2"), Ok(Fault::Unavailable(2)));
        assert_eq!(
            Fault::parse("expire-sessions=5"),
            Ok(Fault::ExpireSessions(5))
        );
        assert_eq!(Fault::parse("logins=1"), Ok(Fault::Logins(1)));
        assert_eq!(Fault::parse("slow-login=12"), Ok(Fault::SlowLogin(12)));
        assert_eq!(Fault::parse("latency=3000"), Ok(Fault::Latency(3000)));
        assert_eq!(Fault::parse("slow-write=2000"), Ok(Fault::SlowWrite(2000)));
        assert!(
            Fault::parse("slow-write")
                .unwrap_err()
                .contains("=MILLISECONDS")
        );
        assert!(
            Fault::parse("latency=soon")
                .unwrap_err()
                .contains("=MILLISECONDS")
        );
        assert_eq!(
            Fault::parse("status=500:/redfish/v1/Systems/"),
            Ok(Fault::Status(500, "/redfish/v1/Systems".into()))
        );
        assert_eq!(
            Fault::parse("hang=/redfish/v1/Chassis"),
            Ok(Fault::Hang("/redfish/v1/Chassis".into()))
        );
        assert_eq!(Fault::parse("down"), Ok(Fault::Down));
        assert_eq!(Fault::parse("hang-all"), Ok(Fault::HangAll));
        assert_eq!(
            Fault::parse("session-location=/redfish/v1/AccountService/Accounts/2"),
            Ok(Fault::SessionLocation(
                "/redfish/v1/AccountService/Accounts/2".into()
            ))
        );
        assert_eq!(
            Fault::parse("duplicate-key=/redfish/v1/Systems/1/#/Attributes/Mode=Enabled_IEEE"),
            Ok(Fault::DuplicateKey(Patch {
                uri: "/redfish/v1/Systems/1".into(),
                pointer: "/Attributes/Mode".into(),
                value: serde_json::json!("Enabled_IEEE"),
            }))
        );
        assert_eq!(
            Fault::parse(
                "redirect-write=/redfish/v1/Systems/1/Actions/ComputerSystem.Reset->/redfish/v1/Managers/1/Actions/Manager.Reset"
            ),
            Ok(Fault::RedirectWrite(
                "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset".into(),
                "/redfish/v1/Managers/1/Actions/Manager.Reset".into()
            ))
        );
        assert_eq!(Fault::parse("decode-paths"), Ok(Fault::DecodePaths));
        for bad in [
            "decode-paths=1",
            "redirect-write=/redfish/v1/a",
            "redirect-write=/etc->/b",
            "unavailable",
            "status=200:/redfish/v1",
            "truncate=/etc",
            "explode",
            "down=1",
            "slow-login",
            "hang-all=/redfish/v1",
            "session-location",
            "duplicate-key=/redfish/v1/Systems/1",
            "duplicate-key=/etc#/a=1",
            "duplicate-key=/redfish/v1#/=1",
        ] {
            assert!(Fault::parse(bad).is_err(), "{bad}");
        }
        assert!(
            Fault::parse("explode")
                .unwrap_err()
                .contains("down, hang-all, session-location")
        );
    }
}
