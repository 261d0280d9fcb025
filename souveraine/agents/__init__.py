"""Any agent can use the memory: the MCP server, tool definitions, agent hooks, events."""
