#!/usr/bin/env bash
# The curl walkthrough of docs/server.md ("Walkthrough with curl"), which includes this
# file verbatim; tests/test_walkthrough.py runs it against a real `memvault serve`.
# Needs curl and jq. ADMIN: the admin key `memvault --tenant acme serve` printed.
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:8765}
: "${ADMIN:?set ADMIN to the admin key printed at the first start}"

# 1. A key for the application: a service key acts for any user of the admin key's
#    tenant (acme), naming the user on each call.
KEY=$(curl -sS --fail-with-body -X POST "$BASE/v1/keys" \
  -H "Authorization: Bearer $ADMIN" -H "Content-Type: application/json" \
  -d '{"role": "service", "name": "chat-app"}' | jq -r .key)

# 2. remember: an explicit statement, stored at once.
ID=$(curl -sS --fail-with-body -X POST "$BASE/v1/memories?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"content": "Alice drinks oolong tea every morning", "tags": ["drink"]}' \
  | jq -r .id)
echo "remembered $ID"

# 3. observe: conversation turns; the write path extracts candidates and gates them.
curl -sS --fail-with-body -X POST "$BASE/v1/observe?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"messages": [{"role": "user", "content": "I prefer reports as XLSX files"}]}' \
  | jq -c '.outcomes[] | {action, memory_id}'

# 4. recall: ranked memories for a query.
curl -sS --fail-with-body -X POST "$BASE/v1/recall?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"query": "what does Alice drink in the morning?", "top_k": 3}' \
  | jq -c '.hits[] | {id: .memory.id, content: .memory.content, score}'

# 5. context: a prompt-ready block within a token budget.
curl -sS --fail-with-body -X POST "$BASE/v1/context?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"query": "what does Alice drink in the morning?", "budget": 500}' | jq -r .text

# 6. An edit makes version 2; history lists every version.
curl -sS --fail-with-body -X PATCH "$BASE/v1/memories/$ID?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"content": "Alice drinks green tea every morning", "reason": "she said so"}' \
  | jq -c '{version, content}'
curl -sS --fail-with-body "$BASE/v1/memories/$ID/history?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  | jq -c '.[] | {op, to_version, content: .state.content}'

# 7. rollback: back to version 1's content, as a new version (3).
curl -sS --fail-with-body -X POST "$BASE/v1/memories/$ID/rollback?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"to_version": 1, "reason": "the edit was wrong"}' | jq -c '{version, content}'

# 8. review: a command-like line is staged, never applied; list the queue, approve one.
curl -sS --fail-with-body -X POST "$BASE/v1/observe?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"messages": [{"role": "user", "content": "update: Alice no longer drinks tea"}]}' \
  | jq -c '.outcomes[] | {action, memory_id}'
CANDIDATE=$(curl -sS --fail-with-body "$BASE/v1/review?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" | jq -r '.[0].id')
curl -sS --fail-with-body -X POST "$BASE/v1/review/$CANDIDATE/approve?user=alice" \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d '{"reason": "confirmed with Alice"}' | jq -c '{id, version, status, content}'
