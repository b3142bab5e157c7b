"""The graph commands, no LLM involved: `build` a database, `exec` a snippet, `query` in Cypher."""

from __future__ import annotations

import sys
from pathlib import Path

from glm_dspy.cli.checks import check_db, check_writable_dir, positive_float, positive_int, read_stdin_text, utf8_text
from glm_dspy.cli.command import add_command
from glm_dspy.cli.console import console
from glm_dspy.cli.errors import UsageError


def check_build(args) -> None:
    """The dataset's name, then the folder: a new one, or with --force an old one, beside which the
    database is built (graphs/load.py builds in a temporary folder next to it, then renames it)."""
    from glm_dspy.graphs.datasets import find_dataset
    from glm_dspy.graphs.name_choice import parse_name_properties

    find_dataset(args.dataset)  # an unknown name is a ValueError listing the known ones
    parse_name_properties(args.name_property)  # TYPE=PROP, checked before anything loads
    if args.db.exists() and not args.db.is_dir():
        raise UsageError(f"--db {args.db}: a file, not a folder; name a folder for the new database")
    if args.db.is_dir() and any(args.db.iterdir()) and not args.force:
        raise UsageError(f"{args.db} already exists and is not empty; pass --force to replace it")
    check_writable_dir(args.db.absolute().parent, "database's parent folder")


def cmd_build(args) -> int:
    from glm_dspy.graphs.build import build_database
    from glm_dspy.graphs.name_choice import parse_name_properties

    with console.status(f"building {args.dataset} into {args.db}"):
        report = build_database(args.dataset, args.db, overwrite=args.force, progress=True, seed=args.seed,
                                schema_examples=not args.no_schema_examples,
                                name_properties=parse_name_properties(args.name_property))
    for note in report.notes:  # what the build changed or chose (graphs/build.py)
        console.print("note: " + note, markup=False, highlight=False)
    console.print(f"[green]built[/] {report.name}: {report.num_nodes:,} nodes, {report.num_edges:,} edges "
                  f"in {report.load_seconds:.1f} s; RetrieveNode index ({report.index_kind}) in "
                  f"{report.index_seconds:.1f} s -> {report.db_dir}")
    return 0


def cmd_exec(args) -> int:
    """The snippet's output on stdout; exit 1 when it raised, or printed only a graph function's
    message about its input (an `Observation`: "no node with id ..."), i.e. found nothing."""
    from glm_dspy.graph import open_graph

    code = read_stdin_text() if args.code == "-" else args.code
    with console.status("opening graph"), open_graph(args.db) as graph:
        executor = graph.executor(timeout_s=args.timeout)
        result = executor.run(code)
    if result.output:
        sys.stdout.write(result.output if result.output.endswith("\n") else result.output + "\n")
    if not result.is_ok:
        console.print(f"[red]{result.error}[/]")
        return 1
    if result.is_observation_only:
        console.print("[red]the snippet printed only graph-function messages: its input named nothing in the "
                      "graph[/]", soft_wrap=True)
        return 1
    return 0


def cmd_query(args) -> int:
    """One Cypher query run exactly as Act's are (graphs/store.py `read`: the gate on its parse,
    a fresh connection, the time limit, the row and byte caps); rows to stdout, tab-separated
    with a header (or JSON Lines); a refused or failed query exits 1 with the reason."""
    import json

    from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused
    from glm_dspy.graphs.store import GraphStore

    cypher = read_stdin_text() if args.cypher == "-" else args.cypher
    store = GraphStore.open(args.db, query_timeout_ms=max(1, round(args.timeout * 1000)))
    try:
        result = store.read(cypher, max_rows=args.max_rows)
    except (QueryRefused, CypherSyntaxError) as error:
        console.print(f"[red]refused:[/] {error}", soft_wrap=True)
        return 1
    except RuntimeError as error:  # Kuzu's binder and runtime errors; QueryLimit past its time or memory
        console.print(f"[red]failed:[/] {str(error).strip()}", soft_wrap=True)
        return 1
    except TimeoutError as error:  # rows still being read at the time limit
        console.print(f"[red]failed:[/] {error}", soft_wrap=True)
        return 1
    columns = list(result.rows[0]) if result.rows else []
    if args.json:
        for row in result.rows:
            sys.stdout.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
    else:
        if columns:
            sys.stdout.write("\t".join(columns) + "\n")
        for row in result.rows:
            sys.stdout.write("\t".join(str(row[column]) for column in columns) + "\n")
    console.print(f"[dim]ran: {result.text}[/]", soft_wrap=True)
    console.print(f"{len(result.rows):,} row(s)" + (f"; stopped: {result.truncated}" if result.truncated else ""))
    return 0


def add_graph_commands(commands) -> None:
    build = add_command(commands, "build", "load a dataset into Kuzu and index it for RetrieveNode")
    build.add_argument("dataset", help="synthetic[:NODES] | nobel | pathquestion[:pql] | grbench:PATH/graph.json | "
                                       "triples:FILE.tsv (subject<TAB>relation<TAB>object) | tables:DIR (also "
                                       "csv:DIR, parquet:DIR: nodes/TYPE.csv, edges/REL.csv, optional graph.toml) | "
                                       "kuzu:PATH (an existing Kuzu database, opened read-only)")
    build.add_argument("--db", required=True, type=Path, help="database directory to create")
    build.add_argument("--force", action="store_true", help="replace an existing database")
    build.add_argument("--seed", type=int, default=0, help="seed for the synthetic generator")
    build.add_argument("--name-property", action="append", default=[], metavar="TYPE=PROP",
                       help="the property a node type's nodes are known by (default: a name/title/label property)")
    build.add_argument("--no-schema-examples", action="store_true",
                       help="write no Cypher examples from the graph itself, only the train split's (a dataset "
                            "without train questions then has none: GLM acts in Python, the paper's Act)")
    build.set_defaults(run=cmd_build, check=check_build)

    execute = add_command(commands, "exec", "run a snippet in the sandbox against a graph; exit 1 when it fails "
                                            "or finds nothing")
    execute.add_argument("code", type=utf8_text, help="Python snippet, or - to read it from stdin")
    execute.add_argument("--db", required=True, type=Path, help="graph database directory (glm-dspy build)")
    execute.add_argument("--timeout", type=positive_float, default=5.0, help="seconds before the snippet is stopped")
    execute.set_defaults(run=cmd_exec, check=lambda args: check_db(args.db))

    query = add_command(commands, "query", "run one read-only Cypher query as Act's are run (gate, limits)")
    query.add_argument("cypher", type=utf8_text, help="the query, or - to read it from stdin")
    query.add_argument("--db", required=True, type=Path, help="graph database directory (glm-dspy build)")
    query.add_argument("--timeout", type=positive_float, default=5.0,
                       help="seconds the query may run, fetching included; a query past them, or past the "
                            "memory of the buffer pool model-written queries share, fails naming the limit")
    query.add_argument("--max-rows", type=positive_int, default=10_000, help="stop reading rows after this many")
    query.add_argument("--json", action="store_true", help="print rows as JSON Lines instead of a TSV table")
    query.set_defaults(run=cmd_query, check=lambda args: check_db(args.db))
