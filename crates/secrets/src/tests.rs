use super::*;
use serde_json::json;

/// The rows of `tests/fixtures/fuzz/secrets/leaked-attributes.json`.
fn corpus() -> Vec<Value> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/fuzz/secrets/leaked-attributes.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("the corpus is checked in"))
        .expect("the corpus is JSON")
}

/// The names issue 9 found reaching snapshots and saved mockups: the corpus rows marked
/// `"issue": 9` (also planted by `tests/it/secrets.rs`).
fn issue_names() -> Vec<String> {
    let names: Vec<String> = corpus()
        .iter()
        .filter(|row| row["issue"] == 9)
        .map(|row| row["name"].as_str().expect("rows are named").to_owned())
        .collect();
    assert_eq!(names.len(), 10, "the issue lists ten names: {names:?}");
    names
}

#[test]
fn the_names_of_the_issue_are_secret() {
    for name in issue_names() {
        assert!(is_secret_name(&name), "{name}");
    }
}

/// The spellings issue 35 found reaching snapshots and saved mockups: the corpus rows marked
/// `"issue": 35` (also planted by `tests/it/secrets.rs`).
fn spelling_names() -> Vec<String> {
    let names: Vec<String> = corpus()
        .iter()
        .filter(|row| row["issue"] == 35)
        .map(|row| row["name"].as_str().expect("rows are named").to_owned())
        .collect();
    assert_eq!(names.len(), 7, "the issue lists seven spellings: {names:?}");
    names
}

#[test]
fn the_spellings_of_issue_35_are_secret() {
    let filter = SecretFilter::new();
    for name in spelling_names() {
        assert!(is_secret_name(&name), "{name}");
        assert!(filter.is_secret(&name, &json!("hunter2")), "{name}");
        assert!(
            is_secret_fact(&format!("bios/{name}"), &json!("hunter2")),
            "{name}"
        );
    }
}

#[test]
fn case_and_separators_do_not_hide_a_secret_word() {
    for name in [
        "pass-word",
        "pass word",
        "Pass.Word",
        "PASSWD",
        "PassWd",
        "Pwd",
        "PwD",
        "P_W_D",
        "PIN",
        "P.I.N",
        "PiN",
        "AdminPIN",
        "ADMINPIN",
        "aDmInPiN",
        "aDMINkEY",
        "ADMINPASSWORD",
        "aDmInPaSsWoRd",
        "SETUP_PASS_WORD",
        "HDD1PASSWORD",
        "Hdd-Pass-Word-1",
        "UserPassWord2Hash",
        "KeyHaSh",
        "xyz_kEyHaSh",
        "sEcReT",
        "ToKeN",
        "Pass_Code",
        "PaSs_PhRaSe",
        "CrEdEnTiAlS",
        "TpmOwnerAuTh",
        "TPMOWNERAUTH",
        "ApI_KeY",
        "PrivateKEY",
        "PSK",
        "WiFi-P.S.K",
    ] {
        assert!(is_secret_name(name), "{name}");
    }
}

#[test]
fn folding_keeps_harmless_look_alikes() {
    // Words a short secret word ends, case and separators aside: only qualifiers (`Admin`,
    // `Setup`, `Hdd`…) may stand before one in the folded reading.
    for name in [
        "Monkey",
        "MONKEY",
        "Turkey",
        "Hotkey",
        "HOTKEY",
        "Spin",
        "SPIN",
        "SpinDownTimeout",
        "Bypass",
        "BYPASS",
        "Compass",
        "PassThrough",
        "PASSTHROUGH",
        "PassWordStatus",
        "PASSWORDSTATUS",
        "AdminPassWordMinimumLength",
        "pass-word-min-length",
        "PinCount",
        "KeyboardLayout",
        "KEYBOARDLAYOUT",
        "NWManagementPassThrough",
        "NWMANAGEMENTPASSTHROUGH",
    ] {
        assert!(!is_secret_name(name), "{name}");
    }
}

#[test]
fn fragments_are_joined_only_into_secret_words() {
    let joined = |name: &str| joined(words(name));
    assert_eq!(joined("PaSsWoRd"), ["password"]);
    assert_eq!(joined("AdminPassWord1"), ["admin", "password", "1"]);
    assert_eq!(joined("Pass_Phrase"), ["passphrase"]);
    assert_eq!(joined("P.I.N"), ["pin"]);
    assert_eq!(joined("KeyHaSh"), ["key", "hash"]);
    assert_eq!(
        joined("NWManagementPassThrough"),
        ["nw", "management", "pass", "through"]
    );
    assert_eq!(joined("KeyboardLayout"), ["keyboard", "layout"]);
}

#[test]
fn write_only_and_password_types_win_over_names_types_and_spellings() {
    let mut filter = SecretFilter::new();
    filter.add_registry(&json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "ServiceNote", "Type": "Password"},
        {"AttributeName": "BootBanner", "Type": "Enumeration", "WriteOnly": true},
        {"AttributeName": "AssetTag", "WriteOnly": "yes"},
        {"AttributeName": "AssetNote", "Type": "password"},
        {"AttributeName": "BootMode", "Type": "Enumeration", "WriteOnly": false},
        {"AttributeName": "SysProfile", "Type": "Enumeration", "WriteOnly": null},
        {"AttributeName": "Pass_Word", "Type": "Enumeration"},
    ]}}));
    for name in [
        "ServiceNote",
        "SERVICE_NOTE",
        "service-note",
        "BootBanner",
        "AssetTag",
        "AssetNote",
    ] {
        assert!(filter.is_secret(name, &json!("Disabled")), "{name}");
    }
    assert!(!filter.is_secret("BootMode", &json!("Uefi")));
    assert!(!filter.is_secret("SysProfile", &json!("Perf")));
    // A closed type vouches for its own spelling only: another is judged by its name.
    assert!(!filter.is_secret("Pass_Word", &json!("Enabled")));
    assert!(filter.is_secret("PassWord", &json!("Enabled")));
    // A write-only entry's own values go from a saved registry, whatever its name and type.
    let mut body = json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "FlexNote", "Type": "String", "WriteOnly": true, "CurrentValue": "v", "DefaultValue": "d"}
    ]}});
    SecretFilter::new().remove_secrets(&mut body);
    assert_eq!(
        body,
        json!({"RegistryEntries": {"Attributes": [
            {"AttributeName": "FlexNote", "Type": "String", "WriteOnly": true}
        ]}})
    );
}

#[test]
fn secret_names_from_real_registries_and_attributes_are_secret() {
    // Attribute names of iDRAC, BIOS and NIC registries in tests/fixtures/public/redfish.
    for name in [
        "SetupPassword",
        "OldSysPassword",
        "FirstTgtChapPwd",
        "IscsiInitiatorChapPwd",
        "IscsiDev1Con1ChapSecret",
        "IPMILan.1.CommunityName",
        "IPMILan.1.EncryptionKey",
        "Users.2.IPMIKey",
        "Users.2.MD5v3Key",
        "Users.2.SHA256Password",
        "Users.2.SHA256PasswordSalt",
        "Users.1.SNMPv3AuthenticationPassphrase",
        "SNMP.1.AgentCommunity",
        "LDAP.1.BindPassword",
        "NTPConfigGroup.1.NTP1SecurityKey",
        "ServerOS.1.ProductKey",
        "SHA256SetupPassword",
        "SHA256SetupPasswordSalt",
        "OAuthServiceSigningKeys",
        // Other spellings.
        "bmcpassword",
        "snmp_community",
        "ClientSecretValue",
        "PrivateKeyFile",
        "CertificatePrivateKey",
        "BearerToken",
        "PasswordHash",
        "KeyBase64",
        "AdminPin",
        "WifiPsk",
    ] {
        assert!(is_secret_name(name), "{name}");
    }
}

#[test]
fn harmless_names_are_kept() {
    // Settings that describe a secret, or only look like one, from the same registries; a
    // snapshot keeps them so their drift is seen.
    for name in [
        "KeyboardLayout",
        "NWManagementPassThrough",
        "OSBMCManagementPassThrough",
        "PasswordStatus",
        "Security.1.PasswordMinimumLength",
        "Security.1.MinimumPasswordScore",
        "StrongPasswordMinLength",
        "DefaultCredentialMitigationConfigGroup.1.DefaultCredentialMitigation",
        "Security.1.MaxIPMIBootstrapCredentialAccounts",
        "Security.1.CsrKeySize",
        "SSHCrypto.1.HostKeyAlgorithms",
        "NTPConfigGroup.1.NTP1SecurityKeyNumber",
        "VirtualMedia.1.KeyEnable",
        "ActiveDirectory.1.AuthTimeout",
        "DelegatedAuth.1.Mode",
        "LDAP.1.CertValidationEnable",
        "SecurityCertificate.1.SerialNumber",
        "CertificateManagement.1.ExpiryNotificationSupport",
        "Broadcom_DCBX",
        "RDMANICModeOnPort",
        "LinkSpeed",
        "SysProfile",
        "Turkey",
        "Monkey",
        "Hash",
        "Value",
        "",
    ] {
        assert!(!is_secret_name(name), "{name}");
    }
}

#[test]
fn words_split_camel_case_acronyms_digits_and_separators() {
    assert_eq!(words("IPMIKey"), ["ipmi", "key"]);
    assert_eq!(words("IpmiKgKey"), ["ipmi", "kg", "key"]);
    assert_eq!(words("MD5v3Key"), ["md", "5", "v", "3", "key"]);
    assert_eq!(words("Pass_Phrase"), ["pass", "phrase"]);
    assert_eq!(
        words("Users.2.SHA256Password"),
        ["users", "2", "sha", "256", "password"]
    );
    assert_eq!(words("KeyboardLayout"), ["keyboard", "layout"]);
    // A character outside ASCII separates words, whatever its length in bytes.
    assert_eq!(words("CléPrivéeKey"), ["cl", "priv", "e", "key"]);
    assert_eq!(words("Ключ2Key"), ["2", "key"]);
}

#[test]
fn key_material_is_recognised_by_value() {
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    for value in [
        pem,
        "A9759B88BA28C197F805848CE542C2F53934E5853698F99E6EA41B5BA35E799A",
        "2CC54638A7CE19B17AC9F74047EF982B",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
        "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:",
        "h6spEuxbyOtGhP35UoGhTcVX3iRaZQGDw4Yk5oQcabw=",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.x",
    ] {
        assert!(looks_like_key_material(value), "{value}");
    }
    // Ids, paths, versions and names that real services print.
    for value in [
        "/redfish/v1/UpdateService/FirmwareInventory/Installed-108089-229.1.123.0__NIC.Slot.3-1-1",
        "/redfish/v1/Chassis/System.Embedded.1/NetworkAdapters/NIC.Slot.3/NetworkDeviceFunctions",
        "./NetworkSettingsRef/IscsiDev1SettingsRef/IscsiDev1Con1SettingsRef",
        "4c4c4544-0035-4610-8033-b4c04f4e4e32",
        "00:0a:f7:12:34:56",
        "229.1.123.0",
        "Enabled_IEEE",
        "PerfOptimized",
        "ssh-rsa,rsa-sha2-512,rsa-sha2-256,ecdsa-sha2-nistp256",
        "Enter a valid URI and retry the operation.",
    ] {
        assert!(!looks_like_key_material(value), "{value}");
    }
}

#[test]
fn the_registry_type_decides_before_the_name() {
    let mut filter = SecretFilter::new();
    filter.add_registry(&json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "BootBanner", "Type": "Password"},
        {"AttributeName": "ChapMutualAuth", "Type": "Enumeration"},
        {"AttributeName": "StrongPassword", "Type": "Enumeration"},
        {"AttributeName": "ApiKey", "Type": "String"},
    ]}}));
    // The same name typed Enumeration by a second registry does not weaken Password.
    filter.add_registry(&json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "BootBanner", "Type": "Enumeration"},
    ]}}));
    assert!(filter.is_secret("BootBanner", &json!("hello")));
    assert!(!filter.is_secret("ChapMutualAuth", &json!("Disabled")));
    assert!(!filter.is_secret("StrongPassword", &json!("Enabled")));
    assert!(filter.is_secret("ApiKey", &json!("x")));
    assert!(filter.is_secret("ChapMutualAuth", &json!("2CC54638A7CE19B17AC9F74047EF982B")));
    assert!(!filter.is_secret("SysProfile", &json!("PerfOptimized")));
    assert!(filter.is_secret("Banner", &json!(["ok", "-----BEGIN CERTIFICATE-----"])));
}

#[test]
fn removal_keeps_links_and_drops_registry_values_of_secrets() {
    let filter = SecretFilter::new();
    let mut body = json!({
        "@odata.id": "/redfish/v1/Systems/1/Bios",
        "Attributes": {"ApiKey": "k", "Banner": "2CC54638A7CE19B17AC9F74047EF982B", "SysProfile": "Perf"},
        "RegistryEntries": {"Attributes": [
            {"AttributeName": "IpmiKgKey", "Type": "String", "CurrentValue": "kg", "DefaultValue": "d"},
            {"AttributeName": "SysProfile", "Type": "Enumeration", "CurrentValue": "Perf"}
        ]}
    });
    filter.remove_secrets(&mut body);
    assert_eq!(
        body,
        json!({
            "@odata.id": "/redfish/v1/Systems/1/Bios",
            "Attributes": {"SysProfile": "Perf"},
            "RegistryEntries": {"Attributes": [
                {"AttributeName": "IpmiKgKey", "Type": "String"},
                {"AttributeName": "SysProfile", "Type": "Enumeration", "CurrentValue": "Perf"}
            ]}
        })
    );
}

#[test]
fn facts_are_secret_by_leaf_name_or_whole_key_material_value() {
    assert!(is_secret_fact("bios/SnmpCommunityString", &json!("public")));
    assert!(is_secret_fact(
        "nic/00:0a:f7:12:34:56/bmc/hii/IpmiKgKey",
        &json!(1)
    ));
    assert!(is_secret_fact(
        "bios/BootBanner",
        &json!("2CC54638A7CE19B17AC9F74047EF982B")
    ));
    assert!(!is_secret_fact(
        "storage/nmp/naa.60050768028081713c0000000000007d/display_name",
        &json!("IBM Fibre Channel Disk (naa.60050768028081713c0000000000007d)")
    ));
    assert!(!is_secret_fact(
        "nic/00:0a:f7:12:34:56/bmc/dcbx_mode",
        &json!("ieee")
    ));
}

/// Every fact path of the examples and baselines keeps its value in reports: the report
/// filter must not hide real findings.
#[test]
fn no_fact_of_the_examples_is_taken_for_a_secret() {
    let mut files = Vec::new();
    for dir in ["examples", "baselines", "tests/fixtures"] {
        collect_json(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(dir),
            &mut files,
        );
    }
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable fixture");
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let Some(facts) = value["facts"].as_object() else {
            continue;
        };
        for (path, value) in facts {
            checked += 1;
            assert!(
                !is_secret_fact(path, value),
                "{}: {path} = {value}",
                file.display()
            );
        }
    }
    assert!(checked > 100, "only {checked} facts found");
}

fn collect_json(dir: std::path::PathBuf, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if !path.ends_with("recorded") {
                collect_json(path, files);
            }
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
}

/// Over the real registries in `tests/fixtures/public/redfish`: every attribute the registry types
/// `Password` is secret, and the name filter drops only the names listed here (all of them
/// secrets or settings that describe one), so a change of the patterns is a reviewed change.
#[test]
fn real_registries_type_secrets_and_the_name_filter_drops_only_known_names() {
    let shared = driftgate_test_data::public_data("redfish");
    let mut files = Vec::new();
    collect_all_json(&shared, &mut files);
    let mut dropped = std::collections::BTreeSet::new();
    let mut registries = 0;
    for file in files {
        let Ok(value) = serde_json::from_str::<Value>(
            &std::fs::read_to_string(&file).expect("readable mockup file"),
        ) else {
            continue;
        };
        let Some(entries) = value["RegistryEntries"]["Attributes"].as_array() else {
            continue;
        };
        registries += 1;
        let mut filter = SecretFilter::new();
        filter.add_registry(&value);
        for entry in entries {
            let name = entry["AttributeName"]
                .as_str()
                .expect("registry entries are named");
            if entry["Type"] == "Password" {
                assert!(filter.is_secret(name, &json!("x")), "{name}");
            } else if filter.is_secret(name, &json!("Enabled")) {
                dropped.insert(name.to_owned());
            }
        }
    }
    assert!(registries >= 5, "only {registries} registries found");
    let expected: std::collections::BTreeSet<String> = [
        "FirstTgtChapPwd",
        "IscsiInitiatorChapPwd",
        "PKey",
        "IscsiDev1Con1ChapSecret",
        "IscsiDev1Con1RevChapSecret",
        "IscsiDev1Con2ChapSecret",
        "IscsiDev1Con2RevChapSecret",
        "SHA256SetupPassword",
        "SHA256SetupPasswordSalt",
        "SHA256SystemPassword",
        "SHA256SystemPasswordSalt",
        "SgxLePubKeyHash0",
        "SgxLePubKeyHash1",
        "SgxLePubKeyHash2",
        "SgxLePubKeyHash3",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(dropped, expected);
}

fn collect_all_json(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_all_json(&path, files);
        } else if path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
}

/// Every attribute name of the real captures in `tests/fixtures/public/redfish` and of
/// `tests/fixtures` (members of `Attributes` objects, registry entries): the name filter,
/// without a registry, drops only these (digit runs written `N`), so folding case and
/// separators away is measured against real names at scale. All are secrets or settings
/// named for one (`PasswordRequireNumbers`, which an iDRAC's registry types `Enumeration`); no
/// NIC, DCB, flow-control or LLDP setting is among them.
#[test]
fn the_name_filter_drops_only_known_names_of_real_captures() {
    let shared = driftgate_test_data::public_data("redfish");
    let mut files = Vec::new();
    collect_all_json(&shared, &mut files);
    collect_all_json(
        &std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures"),
        &mut files,
    );
    let mut names = std::collections::BTreeSet::new();
    for file in files {
        let Ok(value) = serde_json::from_str::<Value>(
            &std::fs::read_to_string(&file).expect("readable JSON file"),
        ) else {
            continue;
        };
        attribute_names(&value, &mut names);
    }
    assert!(
        names.len() > 2000,
        "only {} attribute names found",
        names.len()
    );
    // `Users.12.IPMIKey` → `Users.N.IPMIKey`: one line for sixteen users.
    let numbers = |name: &str| {
        let mut collapsed = String::new();
        let mut in_digits = false;
        for c in name.chars() {
            if !c.is_ascii_digit() {
                collapsed.push(c);
            } else if !in_digits {
                collapsed.push('N');
            }
            in_digits = c.is_ascii_digit();
        }
        collapsed
    };
    let filter = SecretFilter::new();
    let dropped: std::collections::BTreeSet<String> = names
        .iter()
        .filter(|name| filter.is_secret(name, &json!("Enabled")))
        .map(|name| numbers(name))
        .collect();
    let expected: std::collections::BTreeSet<String> = [
        "AdminPin",
        "BootmanagerPassword",
        "Broadcom_SetupKey",
        "ChapSecret",
        "FirstTgtChapPwd",
        "IPMILan.N.CommunityName",
        "IPMILan.N.EncryptionKey",
        "IscsiDevNConNChapSecret",
        "IscsiDevNConNRevChapSecret",
        "IscsiInitiatorChapPwd",
        "LCAttributes.N.UserProxyPassword",
        "LDAP.N.BindPassword",
        "NTPConfigGroup.N.NTPNSecurityKey",
        "OldSetupPassword",
        "OldSysPassword",
        "PKey",
        "RFS.N.Password",
        "RemoteHosts.N.SMTPPassword",
        "SHANSetupPassword",
        "SHANSetupPasswordSalt",
        "SHANSystemPassword",
        "SHANSystemPasswordSalt",
        "SNMP.N.AgentCommunity",
        "SecureDefaultPassword.N.ForceChangePassword",
        "Security.N.PasswordRequireNumbers",
        "Security.N.PasswordRequireRegex",
        "Security.N.PasswordRequireSymbols",
        "Security.N.PasswordRequireUpperCase",
        "SerialRedirection.N.QuitKey",
        "ServerOS.N.ProductKey",
        "SetupPassword",
        "SgxLePubKeyHashN",
        "StrongPassword",
        "SupportAssist.N.DefaultPassword",
        "SupportAssist.N.HostOSProxyPassword",
        "SysPassword",
        "USB.N.ZipPassword",
        "Users.N.EnableSNMPvNPassphrase",
        "Users.N.IPMIKey",
        "Users.N.MDNvNKey",
        "Users.N.Password",
        "Users.N.SHANPassword",
        "Users.N.SHANPasswordSalt",
        "Users.N.SHANvNKey",
        "Users.N.SNMPvNAuthenticationPassphrase",
        "Users.N.SNMPvNPrivacyPassphrase",
        "VNCServer.N.Password",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(dropped, expected);
}

/// The names of attributes in `value` at any depth: members of an `Attributes` object and
/// registry entries' `AttributeName`.
fn attribute_names(value: &Value, names: &mut std::collections::BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("Attributes", Value::Object(attributes)) => {
                        names.extend(attributes.keys().cloned());
                    }
                    ("AttributeName", Value::String(name)) => {
                        names.insert(name.clone());
                    }
                    _ => {}
                }
                attribute_names(child, names);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| attribute_names(item, names)),
        _ => {}
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Cheap cases: many of them, for the many ways to spell a word.
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Every secret word the filter knows, however it is spelt (case, separators,
        /// qualifiers or any word before it, digits and storage words after it), is secret to
        /// every test that keeps values out of snapshots, saved mockups and reports.
        #[test]
        fn every_spelling_of_a_secret_word_is_secret(name in spellings::secret_name()) {
            let planted = json!("PLANTED-value");
            let filter = SecretFilter::new();
            prop_assert!(is_secret_name(&name), "{}", name);
            prop_assert!(filter.is_secret(&name, &planted), "{}", name);
            prop_assert!(is_secret_fact(&format!("bios/{name}"), &planted), "{}", name);
            let mut body = json!({"Attributes": {name.clone(): planted}});
            filter.remove_secrets(&mut body);
            prop_assert_eq!(body, json!({"Attributes": {}}), "{}", name);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn never_panics(text in "\\PC{0,80}") {
            let _ = is_secret_name(&text);
            let _ = looks_like_key_material(&text);
            let _ = is_secret_fact(&text, &json!(text.clone()));
        }

        /// Whatever an attribute is called before it, a secret head word makes it secret.
        #[test]
        fn a_secret_head_is_secret_after_any_prefix(
            prefix in "[A-Za-z0-9_.]{0,20}",
            head in prop::sample::select(vec!["Password", "ApiKey", "_community", "Pw", "Credential", "Token", "Secret", "KgKey", "Pass_Phrase", "OwnerAuth"]),
        ) {
            let name = format!("{prefix}{head}");
            prop_assert!(is_secret_name(&name), "{}", name);
        }

        /// 16 bytes or more of hex, or a PEM block, are key material whatever surrounds them.
        #[test]
        fn hex_keys_and_pem_blocks_are_key_material(
            bytes in prop::collection::vec(any::<u8>(), 16..64),
            before in "[ g-z:,]{0,10}",
            upper in any::<bool>(),
        ) {
            let hex = if upper { hex::encode_upper(&bytes) } else { hex::encode(&bytes) };
            let text = format!("{before}{hex} ");
            prop_assert!(looks_like_key_material(&text), "{}", text);
            let pem = format!("-----BEGIN PRIVATE KEY-----\n{before}\n-----END PRIVATE KEY-----");
            prop_assert!(looks_like_key_material(&pem));
        }

        /// Removal leaves nothing secret behind, and a second pass changes nothing.
        #[test]
        fn removal_is_complete_and_idempotent(
            names in prop::collection::vec("[A-Za-z_]{1,12}", 0..8),
            values in prop::collection::vec("[ -~]{0,40}", 0..8),
        ) {
            let attributes: serde_json::Map<String, Value> = names
                .iter()
                .zip(values.iter().chain(std::iter::repeat(&String::new())))
                .map(|(n, v)| (n.clone(), json!(v)))
                .collect();
            let mut body = json!({"Attributes": attributes, "Nested": [{"Attributes": attributes}]});
            let filter = SecretFilter::new();
            filter.remove_secrets(&mut body);
            for (name, value) in body["Attributes"].as_object().expect("kept") {
                prop_assert!(!filter.is_secret(name, value), "{} = {}", name, value);
            }
            let once = body.clone();
            filter.remove_secrets(&mut body);
            prop_assert_eq!(once, body);
        }
    }
}

#[test]
fn corpus_decides_as_recorded() {
    let rows = corpus();
    assert!(rows.len() > 20);
    for row in rows {
        let name = row["name"].as_str().expect("rows are named");
        let mut filter = SecretFilter::new();
        // A row with a registry type or a write-only flag is typed by a registry entry.
        let mut entry = json!({"AttributeName": name});
        for (field, key) in [("registry_type", "Type"), ("write_only", "WriteOnly")] {
            if let Some(value) = row.get(field) {
                entry[key] = value.clone();
            }
        }
        filter.add_registry(&json!({"RegistryEntries": {"Attributes": [entry]}}));
        assert_eq!(
            filter.is_secret(name, &row["value"]),
            row["secret"] == true,
            "{row}"
        );
    }
}

#[test]
fn saved_copies_keep_hex_ids_outside_settings() {
    let nguid = "0123456789ABCDEF0123456789ABCDEF";
    let wwid = "naa.60050768028081713c0000000000007d";
    let digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let mut filter = SecretFilter::new();
    filter.add_registry(&json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "ServiceNote", "Type": "Password"}]}}));
    let mut body = json!({
        "@odata.id": "/redfish/v1/Systems/1/Storage/1/Drives/0",
        "Identifiers": [{"DurableName": nguid, "DurableNameFormat": "NGUID"}],
        "WWID": wwid,
        "SoftwareId": nguid,
        "Oem": {"Vendor": {"ImageHash": digest, "Certificate": "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----"}},
        "Attributes": {"AssetNote": nguid, "SysProfile": "Perf", "ServiceNote": "x"},
        "RegistryEntries": {"Attributes": [
            {"AttributeName": "AssetNote", "Type": "String", "CurrentValue": nguid, "DefaultValue": ""}
        ]}
    });
    filter.remove_secrets(&mut body);
    assert_eq!(
        body,
        json!({
            "@odata.id": "/redfish/v1/Systems/1/Storage/1/Drives/0",
            "Identifiers": [{"DurableName": nguid, "DurableNameFormat": "NGUID"}],
            "WWID": wwid,
            "SoftwareId": nguid,
            "Oem": {"Vendor": {"ImageHash": digest}},
            "Attributes": {"SysProfile": "Perf"},
            "RegistryEntries": {"Attributes": [
                {"AttributeName": "AssetNote", "Type": "String", "DefaultValue": ""}
            ]}
        })
    );
}

#[test]
fn links_and_objects_under_secret_names_are_cleaned_not_dropped() {
    let filter = SecretFilter::new();
    let mut body = json!({
        "Keys": {"@odata.id": "/redfish/v1/AccountService/Accounts/1/Keys"},
        "KeyService": {"@odata.id": "/redfish/v1/KeyService"},
        "Auth": [{"@odata.id": "/redfish/v1/Auth/1"}],
        "Credentials": {"UserName": "admin", "Password": "hunter2"},
        "Tokens": ["t1", "t2"],
        "Keys@odata.count": 1,
        "Key": "k",
        "Attributes": {"IscsiKey": "k", "Nested": {"Token": "t", "Keep": 1}}
    });
    filter.remove_secrets(&mut body);
    assert_eq!(
        body,
        json!({
            "Keys": {"@odata.id": "/redfish/v1/AccountService/Accounts/1/Keys"},
            "KeyService": {"@odata.id": "/redfish/v1/KeyService"},
            "Auth": [{"@odata.id": "/redfish/v1/Auth/1"}],
            "Credentials": {"UserName": "admin"},
            "Keys@odata.count": 1,
            "Attributes": {"Nested": {"Keep": 1}}
        })
    );
}

#[test]
fn auth_switches_without_a_registry_are_settings_and_anything_else_stays_secret() {
    let filter = SecretFilter::new();
    for value in ["Enabled", "Disabled", "None", "Auto", "On", "Off"] {
        assert!(
            !filter.is_secret("ChapMutualAuth", &json!(value)),
            "{value}"
        );
        assert!(
            !is_secret_fact("bios/ChapMutualAuth", &json!(value)),
            "{value}"
        );
    }
    assert!(!filter.is_secret("IscsiChapAuth", &json!(true)));
    for value in [
        json!("s3cr3t"),
        json!("enabled"),
        json!("Disabled "),
        json!(["Enabled"]),
        json!(1234),
    ] {
        assert!(filter.is_secret("TpmOwnerAuth", &value), "{value}");
        assert!(is_secret_fact("bios/TpmOwnerAuth", &value), "{value}");
    }
    // Only the `auth` head: a password or key set to a setting word is still a secret.
    assert!(filter.is_secret("AdminPassword", &json!("Disabled")));
    assert!(filter.is_secret("IpmiKey", &json!("None")));
    assert!(filter.is_secret("AuthKey", &json!("On")));
    // A registry decides first: typed Password or String, the value does not matter.
    let mut typed = SecretFilter::new();
    typed.add_registry(&json!({"RegistryEntries": {"Attributes": [
        {"AttributeName": "TpmOwnerAuth", "Type": "Password"},
        {"AttributeName": "ChapAuth", "Type": "String"}]}}));
    assert!(typed.is_secret("TpmOwnerAuth", &json!("Disabled")));
    assert!(typed.is_secret("ChapAuth", &json!("Disabled")));
    let mut body = json!({"Attributes": {"ChapMutualAuth": "Disabled", "TpmOwnerAuth": "x"}});
    filter.remove_secrets(&mut body);
    assert_eq!(body, json!({"Attributes": {"ChapMutualAuth": "Disabled"}}));
}

#[test]
fn a_split_holds_the_words_joined_and_where_each_starts_and_ends() {
    let split = Split::of("PCIE_SLOT_1_Port1 DCBXMode");
    assert_eq!(split.text(), "pcieslot1port1dcbxmode");
    assert_eq!(
        split.words().collect::<Vec<_>>(),
        ["pcie", "slot", "1", "port", "1", "dcbx", "mode"]
    );
    assert_eq!(split.words().next_back(), Some("mode"));
    assert!(split.starts_at(0) && split.starts_at(4) && split.starts_at(18));
    assert!(!split.starts_at(1) && !split.starts_at(split.text().len()));
    assert!(split.ends_at(4) && split.ends_at(split.text().len()) && !split.ends_at(0));
    assert_eq!(split.starts().collect::<Vec<_>>(), [0, 4, 8, 9, 13, 14, 18]);
    assert_eq!(
        words("PCIE_SLOT_1_Port1 DCBXMode"),
        split.words().collect::<Vec<_>>()
    );
    let empty = Split::of(" _-é ");
    assert_eq!((empty.text(), empty.words().count()), ("", 0));
    assert!(!empty.starts_at(0) && !empty.ends_at(0));
}
