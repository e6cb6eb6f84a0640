from attention_talk.cli import app

app()
