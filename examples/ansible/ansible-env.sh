# Sourced by the dry runs: puts `ansible-playbook` on PATH, installing ansible-core into a
# virtual environment (target/ansible-venv) when it is not there. Run from the repository root.
if ! command -v ansible-playbook >/dev/null; then
    [ -x target/ansible-venv/bin/ansible-playbook ] || {
        python3 -m venv target/ansible-venv
        target/ansible-venv/bin/pip install --quiet ansible-core
    }
    PATH=$PWD/target/ansible-venv/bin:$PATH
fi
