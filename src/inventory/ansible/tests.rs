//! Tests of the Ansible inventory readers.
