# The privacy harness (dprank.audit.harness, docs/privacy.md): every release path of the
# command and the API in the DP game against a battery of distinguishers. Its own target,
# not part of `all`.
#
#   results/audit/harness/{release_path}.csv, _detail.csv   privacy_audit_full_path (one job per path)
#   results/tables/audit/privacy_harness.{csv,md}           privacy_audit_full_table
# Target: privacy_audit_full.

from dprank.audit import harness as _harness

PH = config.get("privacy_harness") or {}
PH_PATHS = {_harness.path_id(name): name for name in _harness.PATHS}


rule privacy_audit_full_path:
    input:
        library=script_files(script_path("privacy_audit_full_path"), SRC),
    output:
        summary=R("audit/harness/{release_path}.csv"),
        detail=R("audit/harness/{release_path}_detail.csv"),
    log:
        R("logs/audit/harness/{release_path}.log"),
    benchmark:
        R("benchmarks/audit/harness/{release_path}.tsv")
    wildcard_constraints:
        release_path="|".join(PH_PATHS) or "none",
    conda:
        "../../envs/release.yaml"
    params:
        job=lambda w: canonical(
            {
                "path": PH_PATHS[w.release_path],
                "profile": PH.get("profile", "full"),
                "seed": config["seed"],
            }
        ),
    script:
        "../../scripts/privacy_audit_full_path.py"


rule privacy_audit_full_table:
    input:
        rows=expand(R("audit/harness/{release_path}.csv"), release_path=PH_PATHS),
        library=script_files(script_path("privacy_audit_full_table"), SRC),
    output:
        csv=R("tables/audit/privacy_harness.csv"),
        md=R("tables/audit/privacy_harness.md"),
    log:
        R("logs/audit/harness/table.log"),
    conda:
        "../../envs/release.yaml"
    params:
        profile=PH.get("profile", "full"),
    script:
        "../../scripts/privacy_audit_full_table.py"


rule privacy_audit_full:
    input:
        study_pages("privacy_audit_full"),
        rules.privacy_audit_full_table.output,
