"""A fleet of large, realistic servers, generated: issue trackers, chat, storage, databases, cloud, mail, ...

s36 is about pools too large to send whole: a company's hub with a dozen SaaS servers of
fifty to a hundred tools each. Each kind of server here is a few entities (an issue, a
comment, a sprint) and the actions a product of that kind offers on them (create, list,
assign, archive), written out as tools with the names, descriptions and parameter names
such products use. Everything is generated from the tables below, so a pool is the same
bytes every run, and ``pool(n)`` gives a pool of about ``n`` tools for the benches (the kinds
again under numbered names: ``tracker2``, a second Jira).

A few tools carry ``_meta``: ``anthropic/searchHint`` (words a product's users say that
its tool names do not: "slack", "dm") and ``anthropic/alwaysLoad`` (a tool so common it is
never deferred: chat's ``post_message``, the tracker's ``get_issue``).

    python -m mock_servers.fleet chat --transport stdio [--tools N] [serve.py's fault flags]

serves one kind as a real MCP server (``mock_servers.serve`` does the serving); every call
answers one deterministic line naming the tool and its arguments.

Not handled here: tools that do anything; pagination (a kind has at most 120 tools).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mock_servers.catalog import ServerDef, ToolDef

# kind -> (product words for descriptions, {entity: (plural, key parameter, [fields])}, [actions])
# An action is (tool name pattern, description pattern, parameters beyond the key, needs the key).
ACTIONS: dict[str, tuple[str, str, tuple[str, ...], bool]] = {
    "create": ("create_{e}", "Create a new {e} in {p}{where}. Returns the new {e} with its {key}.", ("{fields}",), False),
    "get": ("get_{e}", "Get one {e} by its {key}: every field, as {p} shows it.", (), True),
    "list": ("list_{es}", "List the {es} in {p}{where}, newest first, a page at a time.", ("page_size", "cursor"), False),
    "update": ("update_{e}", "Update fields of an existing {e} (only the fields given change).", ("{fields}",), True),
    "delete": ("delete_{e}", "Delete a {e} permanently. This cannot be undone.", (), True),
    "search": ("search_{es}", "Search {es} by text and filters; returns the best matches with a snippet.", ("query", "limit"), False),
    "archive": ("archive_{e}", "Archive a {e}: hidden from lists, kept for history, can be restored.", (), True),
    "restore": ("restore_{e}", "Restore an archived or deleted {e}.", (), True),
    "export": ("export_{es}", "Export {es} as CSV or JSON for a report or a backup.", ("format", "since"), False),
    "count": ("count_{es}", "Count the {es} that match a filter, without listing them.", ("filter",), False),
    "watch": ("watch_{e}", "Subscribe to changes of a {e}: you are notified when it changes.", (), True),
    "share": ("share_{e}", "Share a {e} with people or a team, with view or edit access.", ("people", "access"), True),
    "history": ("get_{e}_history", "The change history of a {e}: who changed what, and when.", (), True),
}

KINDS: dict[str, tuple[str, dict[str, tuple[str, str, tuple[str, ...]]], dict[str, str]]] = {
    # kind: (product, entities, extra tools name -> description)
    "tracker": ("the issue tracker", {
        "issue": ("issues", "issue_key", ("title", "body", "priority", "labels", "assignee")),
        "comment": ("comments", "comment_id", ("issue_key", "body")),
        "label": ("labels", "label_name", ("color", "description")),
        "milestone": ("milestones", "milestone_id", ("title", "due_date")),
        "sprint": ("sprints", "sprint_id", ("board_id", "goal", "start_date", "end_date")),
        "epic": ("epics", "epic_key", ("title", "summary")),
        "worklog": ("worklogs", "worklog_id", ("issue_key", "time_spent", "started")),
    }, {
        "assign_issue": "Assign an issue to a person (or unassign it with an empty assignee).",
        "transition_issue": "Move an issue to another workflow status: To Do, In Progress, In Review, Done.",
        "link_issues": "Link two issues: blocks, is blocked by, duplicates, relates to.",
        "add_issue_attachment": "Attach a file to an issue.",
        "close_issue": "Close an issue as done, won't do or duplicate, with a resolution comment.",
        "reopen_issue": "Reopen a closed issue.",
        "move_issue_to_sprint": "Move issues into a sprint, or back to the backlog.",
        "my_open_issues": "The open issues assigned to me, most urgent first.",
    }),
    "chat": ("the team chat", {
        "channel": ("channels", "channel_id", ("name", "topic", "is_private")),
        "message": ("messages", "message_ts", ("channel_id", "text", "thread_ts")),
        "reminder": ("reminders", "reminder_id", ("text", "time", "user_id")),
        "user_group": ("user_groups", "group_id", ("handle", "name", "members")),
        "bookmark": ("bookmarks", "bookmark_id", ("channel_id", "title", "link")),
        "emoji": ("emojis", "emoji_name", ("image_url",)),
    }, {
        "post_message": "Post a message to a channel, or reply in a thread with thread_ts.",
        "send_direct_message": "Send a direct message to one person.",
        "add_reaction": "Add an emoji reaction (thumbs up, eyes, tada) to a message.",
        "pin_message": "Pin a message to the top of its channel.",
        "invite_to_channel": "Invite people to a channel.",
        "leave_channel": "Leave a channel.",
        "set_status": "Set your status text and emoji, with an expiry.",
        "lookup_user_by_email": "Find a teammate's chat account from their email address.",
        "upload_file_to_channel": "Share a file in a channel, with a comment.",
        "schedule_message": "Schedule a message to be posted to a channel later.",
    }),
    "storage": ("the object store", {
        "bucket": ("buckets", "bucket_name", ("region", "versioning", "public_access")),
        "object": ("objects", "object_key", ("bucket_name", "content_type", "size")),
        "folder": ("folders", "folder_path", ("bucket_name",)),
        "lifecycle_rule": ("lifecycle_rules", "rule_id", ("bucket_name", "expire_after_days", "prefix")),
        "share_link": ("share_links", "link_id", ("object_key", "expires_in", "password")),
    }, {
        "upload_object": "Upload a file to a bucket under a key; returns its ETag and URL.",
        "download_object": "Download an object's bytes from a bucket.",
        "copy_object": "Copy an object to another key or bucket.",
        "move_object": "Move or rename an object within or across buckets.",
        "get_storage_usage": "Bytes stored and object counts per bucket, for the bill.",
        "presign_url": "A time-limited URL that lets someone download or upload one object without credentials.",
        "set_bucket_policy": "Set who may read or write a bucket (its access policy): public, private, or named accounts.",
    }),
    "db": ("the database", {
        "table": ("tables", "table_name", ("schema_name", "columns")),
        "index": ("indexes", "index_name", ("table_name", "columns", "unique")),
        "view": ("views", "view_name", ("definition",)),
        "backup": ("backups", "backup_id", ("database_name", "retention_days")),
        "role": ("roles", "role_name", ("privileges", "login")),
        "replica": ("replicas", "replica_id", ("region", "lag_limit")),
    }, {
        "run_query": "Run a read-only SQL query and return the rows (at most 1,000).",
        "execute_statement": "Execute a SQL statement that changes data or schema (INSERT, UPDATE, DELETE, ALTER TABLE, CREATE).",
        "explain_query": "Show the query plan of a SQL query, with estimated costs.",
        "describe_table": "The columns, types, keys and indexes of a table.",
        "list_slow_queries": "The slowest queries of the last day, with their mean time and calls.",
        "restore_backup": "Restore a database from a backup into a new database.",
        "vacuum_table": "Reclaim space and refresh statistics of a table.",
        "get_connection_string": "The connection string of a database, for an application.",
    }),
    "cloud": ("the cloud account", {
        "instance": ("instances", "instance_id", ("machine_type", "image", "zone", "tags")),
        "volume": ("volumes", "volume_id", ("size_gb", "zone", "volume_type")),
        "snapshot": ("snapshots", "snapshot_id", ("volume_id", "description")),
        "security_group": ("security_groups", "group_id", ("vpc_id", "rules")),
        "load_balancer": ("load_balancers", "lb_name", ("listeners", "targets")),
        "dns_record": ("dns_records", "record_name", ("zone_name", "record_type", "value", "ttl")),
        "function": ("functions", "function_name", ("runtime", "handler", "memory_mb")),
    }, {
        "start_instance": "Start a stopped virtual machine instance.",
        "stop_instance": "Stop a running virtual machine instance (its disks are kept).",
        "reboot_instance": "Reboot a virtual machine instance.",
        "resize_instance": "Change an instance's machine type (more or fewer CPUs and memory).",
        "get_instance_logs": "The serial console and system logs of an instance.",
        "invoke_function": "Invoke a serverless function with a JSON payload and return its result.",
        "get_billing_summary": "This month's cloud costs so far, per service, with the forecast.",
        "attach_volume": "Attach a disk volume to an instance.",
        "get_metrics": "CPU, memory, disk and network metrics of a resource over a time range.",
    }),
    "mail": ("the mailbox", {
        "email": ("emails", "message_id", ("to", "subject", "body", "cc")),
        "draft": ("drafts", "draft_id", ("to", "subject", "body")),
        "mail_label": ("mail_labels", "label_id", ("name", "color")),
        "filter": ("filters", "filter_id", ("criteria", "action")),
        "contact": ("contacts", "contact_id", ("name", "email_address", "phone")),
    }, {
        "send_email": "Send an email to recipients, with a subject, a body and attachments.",
        "reply_to_email": "Reply to an email in its thread (reply all with reply_all).",
        "forward_email": "Forward an email to other recipients.",
        "mark_email_read": "Mark emails as read or unread.",
        "move_email_to_folder": "Move emails to a folder or label, out of the inbox.",
        "get_attachment": "Download an attachment of an email.",
        "set_vacation_responder": "Turn the out-of-office auto reply on or off, with its message and dates.",
        "unsubscribe": "Unsubscribe from the mailing list or newsletter an email came from, to stop receiving it.",
    }),
    "calendar": ("the calendar", {
        "event": ("events", "event_id", ("title", "start", "end", "attendees", "location")),
        "calendar": ("calendars", "calendar_id", ("name", "time_zone")),
        "room": ("rooms", "room_id", ("building", "capacity")),
    }, {
        "find_free_time": "Find times when all the given people are free for a meeting of a given length.",
        "respond_to_invitation": "Accept, decline or tentatively accept a meeting invitation.",
        "book_room": "Book a meeting room for an event.",
    }),
    "crm": ("the CRM", {
        "lead": ("leads", "lead_id", ("name", "company", "email", "source")),
        "deal": ("deals", "deal_id", ("name", "amount", "stage", "close_date")),
        "company": ("companies", "company_id", ("name", "domain", "industry")),
        "customer_contact": ("customer_contacts", "contact_id", ("name", "email", "company_id")),
    }, {
        "convert_lead": "Convert a qualified lead into a contact, a company and a deal.",
        "log_call": "Log a sales call with a contact, with notes and an outcome.",
        "get_pipeline_report": "Deals per stage with their total value, for the sales pipeline.",
    }),
    "monitoring": ("the monitoring service", {
        "alert": ("alerts", "alert_id", ("query", "threshold", "notify")),
        "dashboard": ("dashboards", "dashboard_id", ("title", "widgets")),
        "incident": ("incidents", "incident_id", ("title", "severity", "commander")),
        "uptime_check": ("uptime_checks", "check_id", ("url", "interval_seconds")),
    }, {
        "acknowledge_alert": "Acknowledge a firing alert so it stops paging the on-call.",
        "silence_alert": "Silence an alert for a while, during maintenance.",
        "query_metrics": "Query a metric time series with a PromQL-style expression.",
        "get_on_call": "Who is on call now for a service, and who is next.",
        "search_logs": "Search application logs by text and time range.",
    }),
    "ci": ("the CI service", {
        "pipeline": ("pipelines", "pipeline_id", ("branch", "commit_sha")),
        "job": ("jobs", "job_id", ("pipeline_id", "stage")),
        "artifact": ("artifacts", "artifact_id", ("job_id", "path")),
        "secret": ("secrets", "secret_name", ("value", "environment")),
        "runner": ("runners", "runner_id", ("tags", "platform")),
    }, {
        "retry_job": "Retry a failed CI job.",
        "cancel_pipeline": "Cancel a running pipeline and all its jobs.",
        "get_job_log": "The log output of a CI job.",
        "trigger_deploy": "Deploy a build to an environment (staging, production).",
    }),
    "wiki": ("the wiki", {
        "page": ("pages", "page_id", ("title", "body", "parent_id")),
        "space": ("spaces", "space_key", ("name", "description")),
        "page_comment": ("page_comments", "comment_id", ("page_id", "body")),
        "template": ("templates", "template_id", ("name", "body")),
    }, {
        "publish_page": "Publish a draft page so everyone can read it.",
        "move_page": "Move a page under another parent page or space.",
        "get_page_children": "The child pages of a page.",
    }),
    "billing": ("the billing system", {
        "invoice": ("invoices", "invoice_id", ("customer_id", "amount", "due_date")),
        "subscription": ("subscriptions", "subscription_id", ("customer_id", "plan", "quantity")),
        "refund": ("refunds", "refund_id", ("charge_id", "amount", "reason")),
        "coupon": ("coupons", "coupon_code", ("percent_off", "duration")),
        "payment_method": ("payment_methods", "payment_method_id", ("customer_id", "card_last4")),
    }, {
        "charge_customer": "Charge a customer's saved payment method an amount now.",
        "send_invoice": "Email an invoice to the customer.",
        "cancel_subscription": "Cancel a subscription now or at the end of its period.",
        "get_revenue_report": "Monthly recurring revenue, churn and new revenue for a period.",
    }),
    "git": ("the code host", {
        "repository": ("repositories", "repo", ("owner", "visibility", "default_branch")),
        "pull_request": ("pull_requests", "pr_number", ("repo", "title", "head", "base")),
        "branch": ("branches", "branch_name", ("repo", "from_ref")),
        "release": ("releases", "tag_name", ("repo", "notes")),
        "review_comment": ("review_comments", "comment_id", ("pr_number", "path", "line", "body")),
        "workflow_run": ("workflow_runs", "run_id", ("repo", "workflow")),
    }, {
        "merge_pull_request": "Merge a pull request (merge, squash or rebase).",
        "request_review": "Ask people to review a pull request.",
        "approve_pull_request": "Approve a pull request after review.",
        "get_file_contents": "The contents of a file in a repository at a branch or commit.",
        "compare_commits": "The commits and changed files between two refs.",
        "blame_file": "Who last changed each line of a file.",
    }),
    "support": ("the help desk", {
        "support_ticket": ("support_tickets", "ticket_id", ("requester", "subject", "priority")),
        "macro": ("macros", "macro_id", ("title", "actions")),
        "article": ("articles", "article_id", ("title", "body", "section")),
        "satisfaction_rating": ("satisfaction_ratings", "rating_id", ("ticket_id", "score")),
    }, {
        "reply_to_customer": "Reply to a customer on their support ticket (public or internal note).",
        "escalate_ticket": "Escalate a support ticket to the next tier.",
        "merge_tickets": "Merge duplicate support tickets into one.",
    }),
    "hr": ("the HR system", {
        "employee": ("employees", "employee_id", ("name", "department", "manager_id", "start_date")),
        "time_off_request": ("time_off_requests", "request_id", ("employee_id", "start_date", "end_date", "kind")),
        "job_opening": ("job_openings", "opening_id", ("title", "department", "location")),
        "candidate": ("candidates", "candidate_id", ("name", "email", "opening_id")),
    }, {
        "approve_time_off": "Approve or deny a time-off (vacation, sick leave) request.",
        "get_org_chart": "The org chart under a manager: who reports to whom.",
        "schedule_interview": "Schedule an interview with a candidate and interviewers.",
    }),
}

GLOSS = {  # what each entity is, as a product's docs say it; every description of its tools carries it
    "issue": "a bug, task or story to work on", "comment": "a remark on an issue", "label": "a tag to group issues by",
    "milestone": "a target date that groups issues", "sprint": "a time-boxed iteration of a board", "epic": "a large body of work split into issues",
    "worklog": "time logged as spent working on an issue", "channel": "a conversation room for a team or topic",
    "message": "a chat message in a channel or thread", "reminder": "a note that pings someone at a set time",
    "user_group": "a handle that mentions a group of people", "bookmark": "a link saved at the top of a channel",
    "emoji": "a custom emoji for messages and reactions", "bucket": "a container of stored files (objects)",
    "object": "a stored file in a bucket", "folder": "a path prefix that groups objects",
    "lifecycle_rule": "a rule that expires or archives old objects", "share_link": "a link that shares a stored file with people",
    "table": "a database table of rows and columns", "index": "a database index that speeds up lookups on columns",
    "view": "a saved SQL query that reads like a table", "backup": "a copy of a database to restore from",
    "role": "a database login or group with privileges", "replica": "a read-only copy of a database kept in sync",
    "instance": "a virtual machine (VM, server)", "volume": "a disk attached to a virtual machine",
    "snapshot": "a point-in-time copy of a disk volume", "security_group": "firewall rules for network traffic",
    "load_balancer": "a front end that spreads traffic over servers", "dns_record": "a domain name record that points a name at an address",
    "function": "a serverless function that runs code on demand", "email": "a message in the mailbox",
    "draft": "an email not sent yet", "mail_label": "a label or folder for emails", "filter": "a rule that sorts incoming mail",
    "contact": "a person in the address book", "event": "a meeting or appointment on the calendar",
    "calendar": "a calendar of events", "room": "a meeting room that can be booked", "lead": "a possible customer not qualified yet",
    "deal": "a sales opportunity with an amount and a stage", "company": "an organization you sell to",
    "customer_contact": "a person at a customer company", "alert": "a rule that pages people when a metric crosses a threshold",
    "dashboard": "a page of charts of metrics", "incident": "an outage or degradation being handled",
    "uptime_check": "a probe that checks a URL is up", "pipeline": "a CI run of build, test and deploy stages",
    "job": "one step of a CI pipeline", "artifact": "a file a CI job produced", "secret": "a credential available to CI jobs",
    "runner": "a machine that runs CI jobs", "page": "a wiki page", "space": "a section of the wiki for a team",
    "page_comment": "a comment on a wiki page", "template": "a starting point for new wiki pages",
    "invoice": "a bill sent to a customer", "subscription": "a customer's recurring plan",
    "refund": "money given back to a customer for a charge", "coupon": "a discount code", "payment_method": "a customer's saved card",
    "repository": "a git repository of code", "pull_request": "a proposed change (PR) to merge into a branch",
    "branch": "a line of development in a repository", "release": "a tagged version with release notes",
    "review_comment": "a comment on a line of a pull request", "workflow_run": "one run of a repository's automation workflow",
    "support_ticket": "a customer's request to the help desk", "macro": "a canned reply and actions for support tickets",
    "article": "a help center article", "satisfaction_rating": "a customer's rating of a support ticket",
    "employee": "a person who works at the company", "time_off_request": "a request for vacation or leave",
    "job_opening": "a position the company is hiring for", "candidate": "a person applying for a job",
}
LESSON_KINDS = ("tracker", "chat", "storage", "db", "cloud", "mail")
WHERE = {"tracker": " (a project)", "chat": " (a workspace)", "storage": "", "db": " (a database)", "cloud": " (a project and region)",
         "mail": " (a mailbox)"}
HINTS = {  # tool -> _meta["anthropic/searchHint"]: what users call it that its name does not say
    "post_message": "slack say announce", "send_direct_message": "slack dm private message",
    "create_issue": "jira bug report ticket", "search_issues": "jira jql find bugs", "run_query": "sql select postgres",
    "upload_object": "s3 put file", "send_email": "gmail compose", "create_instance": "ec2 vm launch server",
    "find_free_time": "availability slot", "get_on_call": "pager rota", "acknowledge_alert": "ack page",
}
PARAMS = {  # the parameters of an extra tool, where the entities its name mentions would not give them
    "post_message": ["channel_id", "text", "thread_ts"], "send_direct_message": ["user_id", "text"],
    "send_email": ["to", "subject", "body", "cc", "attachments"], "reply_to_email": ["message_id", "body", "reply_all"],
    "set_status": ["status_text", "status_emoji", "expires_at"], "lookup_user_by_email": ["email_address"],
    "assign_issue": ["issue_key", "assignee"], "transition_issue": ["issue_key", "status"], "run_query": ["sql", "database_name"],
    "execute_statement": ["sql", "database_name"], "find_free_time": ["attendees", "duration_minutes", "within_days"],
}
ALWAYS = frozenset({"post_message", "get_issue"})  # _meta["anthropic/alwaysLoad"]
DESTRUCTIVE = ("delete_", "execute_statement", "charge_customer", "cancel_")


@dataclass(frozen=True)
class MetaToolDef(ToolDef):
    """A catalog tool with ``_meta`` on its listing."""

    meta: Mapping[str, Any] | None = None

    def listing(self) -> dict[str, Any]:
        entry = super().listing()
        if self.meta:
            entry["_meta"] = dict(self.meta)
        return entry


def _param(name: str) -> dict[str, Any]:
    kinds = {"page_size": "integer", "limit": "integer", "size": "integer", "ttl": "integer", "amount": "number",
             "quantity": "integer", "capacity": "integer", "size_gb": "integer", "memory_mb": "integer", "is_private": "boolean",
             "versioning": "boolean", "unique": "boolean", "login": "boolean", "public_access": "boolean"}
    kind = kinds.get(name, "array" if name in ("labels", "members", "attendees", "tags", "columns", "rules", "widgets") else "string")
    schema: dict[str, Any] = {"type": kind, "description": name.replace("_", " ")}
    if kind == "array":
        schema["items"] = {"type": "string"}
    return schema


def _tool(kind: str, name: str, description: str, params: list[str], required: list[str]) -> MetaToolDef:
    meta: dict[str, Any] = {}
    if name in HINTS:
        meta["anthropic/searchHint"] = HINTS[name]
    if name in ALWAYS:
        meta["anthropic/alwaysLoad"] = True
    params = list(dict.fromkeys(params))
    schema = {"type": "object", "properties": {p: _param(p) for p in params}, "required": [r for r in required if r in params]}
    annotations: dict[str, Any] = {}
    if name.startswith(("get_", "list_", "search_", "count_", "export_", "describe_", "explain_", "find_", "lookup_", "my_", "query_")):
        annotations["readOnlyHint"] = True
    elif name.startswith(DESTRUCTIVE):
        annotations["destructiveHint"] = True

    def handler(args: dict[str, Any]) -> str:
        return f"{kind}.{name}: ok {json.dumps(args, sort_keys=True)}"

    return MetaToolDef(name, description, schema, handler, annotations, meta=meta or None)


def tools(kind: str) -> list[MetaToolDef]:
    """Every tool of one kind of server, in a fixed order."""
    product, entities, extra = KINDS[kind]
    found: dict[str, MetaToolDef] = {}
    for entity, (plural, key, fields) in entities.items():
        words = {"e": entity.replace("_", " "), "es": plural.replace("_", " "), "p": product, "key": key.replace("_", " "),
                 "where": WHERE.get(kind, "")}
        for pattern, text, params, keyed in ACTIONS.values():
            name = pattern.format(e=entity, es=plural)
            text = f"{text} A {words['e']} is {GLOSS[entity]}."
            names = [key] if keyed else []
            for p in params:
                names += list(fields) if p == "{fields}" else [p]
            found[name] = _tool(kind, name, text.format(**words), names, [key] if keyed else list(fields[:1]))
    for name, text in extra.items():
        params = PARAMS.get(name) or [p for e, (_, key, fields) in entities.items() if e in name for p in (key, *fields[:2])] or ["query"]
        found[name] = _tool(kind, name, text, params, params[:1])
    return list(found.values())


def server(kind: str, limit: int | None = None, name: str | None = None) -> ServerDef:
    """One kind as a catalog server: its extra tools first (they are what people ask for), then the rest, cut at ``limit``."""
    listed = tools(kind)
    extra = set(KINDS[kind][2]) | ALWAYS
    ordered = [t for t in listed if t.name in extra] + [t for t in listed if t.name not in extra]
    return ServerDef(name or kind, "3.2.0", tuple(ordered[:limit] if limit else ordered))


def pool(size: int) -> dict[str, list[MetaToolDef]]:
    """About ``size`` tools, as servers: every kind once, then again as ``tracker2``, ``chat2``, ... until there are enough."""
    found: dict[str, list[MetaToolDef]] = {}
    total, round_ = 0, 1
    while total < size:
        for kind in KINDS:
            if total >= size:
                break
            taken = tools(kind)[: size - total]
            found[kind if round_ == 1 else f"{kind}{round_}"] = taken
            total += len(taken)
        round_ += 1
    return found


def main(argv: list[str] | None = None) -> int:
    """Serve one kind: ``KIND --transport stdio [--tools N]`` and serve.py's fault flags."""
    from mock_servers import serve

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in KINDS:
        print(f"usage: python -m mock_servers.fleet {{{','.join(KINDS)}}} --transport stdio [--tools N] [flags]", file=sys.stderr)
        return 2
    kind, rest = argv[0], argv[1:]
    limit = None
    if "--tools" in rest:
        at = rest.index("--tools")
        try:
            limit = int(rest[at + 1])
        except (IndexError, ValueError):
            print("--tools: expected a whole number", file=sys.stderr)
            return 2
        del rest[at:at + 2]
    _, options = serve.parse(rest, name=f"fleet {kind}")
    definition = server(kind, limit)
    return serve.run_server(definition, options)


if __name__ == "__main__":
    from harness.exits import exit_now

    from mock_servers.serve import server_side_sdk

    server_side_sdk()  # the server half of the SDK only, before anything imports mcp
    exit_now(main())
