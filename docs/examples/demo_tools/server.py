"""A stdio MCP server that looks like a real SaaS connector, for demos and screenshots of the Tools panel.

    python docs/examples/demo_tools/server.py NAME        # NAME: github, slack, jira, calendar, drive, crm, …

Each tool answers with a line naming itself and its arguments; nothing leaves the machine. ``mcp.json``::

    {"mcpServers": {"github": {"command": "python", "args": ["docs/examples/demo_tools/server.py", "github"]}}}
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from mcp.server.mcpserver import MCPServer

CATALOG: dict[str, list[tuple[str, str]]] = {
    "github": [
        ("create_issue", "Open a new issue in a repository with a title, body, labels and assignees."),
        ("list_issues", "List issues in a repository, filtered by state, labels, assignee or milestone."),
        ("get_issue", "Read one issue with its body, labels, assignees and timeline."),
        ("update_issue", "Change an issue's title, body, state, labels, assignees or milestone."),
        ("close_issue", "Close an issue, optionally as not planned, with a closing comment."),
        ("comment_on_issue", "Add a comment to an issue or a pull request."),
        ("search_issues", "Search issues and pull requests across GitHub with the search syntax."),
        ("search_code", "Search code across repositories (language, path and repository filters)."),
        ("search_repositories", "Find repositories by name, topic, language or stars."),
        ("get_file_contents", "Read a file or a directory listing at a branch, tag or commit."),
        ("create_or_update_file", "Commit a new or changed file to a branch."),
        ("create_branch", "Create a branch from another branch or a commit."),
        ("list_branches", "List the branches of a repository."),
        ("delete_branch", "Delete a branch (not the default branch)."),
        ("create_pull_request", "Open a pull request from a head branch into a base branch."),
        ("list_pull_requests", "List pull requests by state, base, head or author."),
        ("get_pull_request_diff", "Read the unified diff of a pull request."),
        ("merge_pull_request", "Merge a pull request (merge, squash or rebase)."),
        ("review_pull_request", "Approve, request changes or comment on a pull request."),
        ("list_commits", "List commits on a branch, optionally for one path or author."),
        ("get_commit", "Read one commit with its files and stats."),
        ("create_release", "Draft or publish a release for a tag, with notes."),
        ("list_releases", "List the releases of a repository."),
        ("list_workflow_runs", "List GitHub Actions runs, filtered by workflow, branch or status."),
        ("rerun_workflow", "Re-run a failed GitHub Actions workflow run."),
        ("list_notifications", "List unread notifications for the signed-in user."),
        ("add_labels", "Add labels to an issue or pull request."),
        ("assign_issue", "Assign people to an issue or pull request."),
        ("create_milestone", "Create a milestone with a due date."),
        ("get_repository", "Read a repository's settings, topics and default branch."),
    ],
    "slack": [
        ("post_message", "Post a message to a channel or a direct message."),
        ("reply_in_thread", "Reply in the thread of a message."),
        ("list_channels", "List public and private channels you are a member of."),
        ("get_channel_history", "Read recent messages of a channel."),
        ("search_messages", "Search messages and files across the workspace."),
        ("add_reaction", "Add an emoji reaction to a message."),
        ("upload_file", "Upload a file to a channel, with a comment."),
        ("set_status", "Set your status text, emoji and expiry."),
        ("list_users", "List the people in the workspace."),
        ("schedule_message", "Schedule a message for later."),
        ("delete_message", "Delete a message you posted."),
        ("pin_message", "Pin a message to a channel."),
        ("create_channel", "Create a public or private channel."),
        ("set_channel_topic", "Change a channel's topic."),
        ("add_reminder", "Remind yourself or someone else at a time."),
    ],
    "jira": [
        ("create_ticket", "Create a Jira issue in a project with type, summary and description."),
        ("search_tickets", "Search Jira issues with JQL."),
        ("get_ticket", "Read a Jira issue with its fields, comments and links."),
        ("transition_ticket", "Move a Jira issue to another status (e.g. In Progress, Done)."),
        ("assign_ticket", "Assign a Jira issue to a person."),
        ("comment_on_ticket", "Add a comment to a Jira issue."),
        ("link_tickets", "Link two Jira issues (blocks, relates to, duplicates)."),
        ("list_sprints", "List the sprints of a board."),
        ("move_to_sprint", "Move Jira issues into a sprint."),
        ("log_work", "Log time spent on a Jira issue."),
        ("list_projects", "List the Jira projects you can see."),
        ("get_board", "Read a board's columns and filter."),
    ],
    "calendar": [
        ("list_events", "List events between two times on one or more calendars."),
        ("create_event", "Create an event with attendees, location and a video link."),
        ("update_event", "Move or change an event."),
        ("delete_event", "Cancel an event and notify its attendees."),
        ("find_free_time", "Find times when everyone in a list is free."),
        ("respond_to_invitation", "Accept, decline or tentatively accept an invitation."),
        ("list_calendars", "List the calendars you can see."),
    ],
    "drive": [
        ("search_files", "Search files by name, content, type or owner."),
        ("read_file", "Read a document, spreadsheet or text file as text."),
        ("create_document", "Create a document from Markdown."),
        ("update_document", "Replace or append text in a document."),
        ("share_file", "Share a file with people or a group, with a role."),
        ("list_folder", "List a folder's files and subfolders."),
        ("move_file", "Move a file to another folder."),
        ("export_pdf", "Export a document or sheet as PDF."),
        ("read_sheet_range", "Read a range of cells from a spreadsheet."),
        ("write_sheet_range", "Write values into a range of cells."),
    ],
    "crm": [
        ("search_contacts", "Search contacts by name, email, company or tag."),
        ("get_contact", "Read a contact with its deals, notes and activity."),
        ("create_contact", "Create a contact."),
        ("update_deal_stage", "Move a deal to another pipeline stage."),
        ("list_deals", "List deals by owner, stage or close date."),
        ("log_call", "Log a call with notes on a contact or deal."),
        ("create_task", "Create a follow-up task with a due date."),
        ("list_invoices", "List invoices by customer, status or date."),
        ("send_invoice", "Email an invoice to the customer."),
    ],
}
NAME = sys.argv[1] if len(sys.argv) > 1 else "github"
server = MCPServer(NAME, log_level="WARNING")


def _tool(label: str) -> Callable[..., str]:
    def tool(target: str = "", text: str = "", limit: int = 20) -> str:
        return f"{label}(target={target!r}, text={text!r}, limit={limit})"

    return tool


for tool_name, description in CATALOG.get(NAME, CATALOG["github"]):
    server.add_tool(_tool(f"{NAME}.{tool_name}"), name=tool_name, description=description)

if __name__ == "__main__":
    server.run()
