"""one intent, one row: match numbers unique per session, a key per started session

``match (session_id, number)`` is unique: two "next match" requests racing used
to make two "match 2" (and the session's backup then refused to import).  The
matches such a race has already doubled are numbered on, in the order they
were made, before the constraint is added.

``game_session.idempotency_key`` holds the key of the setup form that started
the session, so that the same form sent twice starts one session.

Revision ID: c4e1a7d2b9f0
Revises: 017986370466
Create Date: 2026-11-29 10:12:40.118204

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c4e1a7d2b9f0'
down_revision = '017986370466'
branch_labels = None
depends_on = None


def _number_doubled_matches_on():
    match = sa.table(
        'match', sa.column('id', sa.Integer), sa.column('session_id', sa.Integer),
        sa.column('number', sa.Integer),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(match.c.id, match.c.session_id, match.c.number)
        .order_by(match.c.session_id, match.c.number, match.c.id)
    ).all()
    last = {}
    for id_, session_id, number in rows:
        wanted = max(number, last.get(session_id, 0) + 1)
        if wanted != number:
            connection.execute(
                sa.update(match).where(match.c.id == id_).values(number=wanted)
            )
        last[session_id] = wanted


# unique indexes rather than constraints: SQLite creates an index in place, where a
# constraint would rebuild the table, and dropping the old table of game_session or
# match fails on the rows that refer to it (foreign keys are on)


def upgrade():
    _number_doubled_matches_on()
    op.create_index(
        'ix_match_session_id_number', 'match', ['session_id', 'number'], unique=True
    )
    with op.batch_alter_table('game_session', schema=None) as batch_op:
        batch_op.add_column(sa.Column('idempotency_key', sa.String(length=64), nullable=True))
    op.create_index(
        'ix_game_session_idempotency_key', 'game_session', ['idempotency_key'], unique=True
    )


def downgrade():
    op.drop_index('ix_game_session_idempotency_key', table_name='game_session')
    with op.batch_alter_table('game_session', schema=None) as batch_op:
        batch_op.drop_column('idempotency_key')
    op.drop_index('ix_match_session_id_number', table_name='match')
