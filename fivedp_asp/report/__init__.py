"""What adjudication is shown as: JSON documents, the option registry as text, and pictures."""
