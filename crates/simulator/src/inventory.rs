//! The `inventory.toml` of a simulated fleet (`--write-inventory`): one `[[host]]` per BMC,
//! a `down` one included (an unreachable host is what a run must report), with the fleet,
//! clusters of consecutive BMCs and a reference to the simulator's account, never its value.
//! Pure: the caller writes the text.

use std::fmt::Write as _;

use super::account::{PASSWORD_ENV, USERNAME_ENV};
use super::fleet::BoundBmc;

/// What a written inventory says besides the BMCs.
#[derive(Debug, Clone, Copy)]
pub struct InventorySettings<'a> {
    /// The hosts' fleet.
    pub fleet: &'a str,
    /// Hosts `K·c … K·c + K - 1` form cluster `sim-cNNN` (c from 0), when given.
    pub cluster_size: Option<usize>,
    /// The BMCs require a login: hosts name the simulator's account variables.
    pub credentials: bool,
    /// The certificate's `sha256:` pin, when serving HTTPS.
    pub pin: Option<&'a str>,
}

/// The cluster of BMC `index` in clusters of `size`.
pub fn cluster_name(index: usize, size: usize) -> String {
    format!("sim-c{:03}", index / size.max(1))
}

/// The inventory text for `bmcs`.
pub fn render(bmcs: &[BoundBmc], settings: &InventorySettings<'_>) -> String {
    let quote = |text: &str| toml::Value::String(text.to_owned()).to_string();
    let mut text = format!(
        "# {} simulated BMCs, written by `driftgate mockup serve`.\n[defaults]\nfleet = {}\n",
        bmcs.len(),
        quote(settings.fleet)
    );
    if settings.credentials {
        // The simulator reads its account from the same two variables.
        let _ = writeln!(
            text,
            "credentials = {{ username_env = {}, password_env = {} }}",
            quote(USERNAME_ENV),
            quote(PASSWORD_ENV)
        );
    }
    for bmc in bmcs {
        let source = match settings.pin {
            Some(pin) => format!("redfish={}?pin={pin}", bmc.url),
            None => format!("redfish={}", bmc.url),
        };
        let _ = write!(text, "\n[[host]]\nname = {}\n", quote(&bmc.name));
        if let Some(size) = settings.cluster_size {
            let _ = writeln!(text, "cluster = {}", quote(&cluster_name(bmc.index, size)));
        }
        let _ = writeln!(text, "sources = [{}]", quote(&source));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bmc(index: usize) -> BoundBmc {
        BoundBmc {
            index,
            name: crate::plan::host_name(index),
            dir: "bmc".into(),
            url: format!("https://127.0.0.1:{}", 8000 + index),
            down: index == 1,
        }
    }

    #[test]
    fn hosts_clusters_pins_and_the_account_reference() {
        let bmcs: Vec<BoundBmc> = (0..5).map(bmc).collect();
        let text = render(
            &bmcs,
            &InventorySettings {
                fleet: "lab \"a\"",
                cluster_size: Some(2),
                credentials: true,
                pin: Some("sha256:00ff"),
            },
        );
        let parsed: toml::Table = text.parse().unwrap();
        assert_eq!(parsed["defaults"]["fleet"].as_str(), Some("lab \"a\""));
        assert_eq!(
            parsed["defaults"]["credentials"]["password_env"].as_str(),
            Some("DRIFTGATE_MOCKUP_PASSWORD")
        );
        let hosts = parsed["host"].as_array().unwrap();
        let column = |key: &str| -> Vec<String> {
            hosts
                .iter()
                .map(|h| h[key].to_string().trim_matches('"').to_owned())
                .collect()
        };
        assert_eq!(
            column("name"),
            ["sim-0000", "sim-0001", "sim-0002", "sim-0003", "sim-0004"]
        );
        assert_eq!(
            column("cluster"),
            ["sim-c000", "sim-c000", "sim-c001", "sim-c001", "sim-c002"]
        );
        assert_eq!(
            hosts[1]["sources"][0].as_str(),
            Some("redfish=https://127.0.0.1:8001?pin=sha256:00ff")
        );
        let open = render(
            &bmcs[..1],
            &InventorySettings {
                fleet: "sim",
                cluster_size: None,
                credentials: false,
                pin: None,
            },
        );
        assert!(
            !open.contains("credentials") && !open.contains("cluster"),
            "{open}"
        );
        assert!(
            open.contains("sources = [\"redfish=https://127.0.0.1:8000\"]"),
            "{open}"
        );
    }
}
