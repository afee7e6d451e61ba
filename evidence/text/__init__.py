"""Understanding text, below the judge, the answer layer and the agent that all read questions and sentences:
`terms` (the analysed terms every scorer compares), `question` (what a question asks for: its kind, the unit or
noun it wants, negation), `planning` (a question split into sub-questions, queries, key phrases and clues, and
read in the light of a thread) and `sentence_spans` (a text split into sentences at exact offsets)."""
