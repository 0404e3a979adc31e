"""a restore written in parts: the tournament and the series it is writing are marked

``tournament.restoring`` and ``tournament_series.restoring``: while a restore
writes a backup file in several short transactions (so that SQLite's write lock
lets the tables' saves in between), the moment of its last part; None once it is
complete, and for every row made otherwise.  Its rows carry stand-in links until
the last part, so nobody finds them; a restore that died halfway leaves marked
rows, removed by a later restore once their mark is old.

Revision ID: b6d2f8a4c0e7
Revises: d9f4b2c6e8a3
Create Date: 2026-12-02 21:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b6d2f8a4c0e7'
down_revision = 'd9f4b2c6e8a3'
branch_labels = None
depends_on = None


def upgrade():
    # ALTER TABLE … ADD COLUMN: every row there is complete (None)
    with op.batch_alter_table('tournament', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('restoring', sa.DateTime(), nullable=True))

    with op.batch_alter_table('tournament_series', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('restoring', sa.DateTime(), nullable=True))


def downgrade():
    # ALTER TABLE … DROP COLUMN (SQLite 3.35+): no copy of the tables the rows refer to
    with op.batch_alter_table('tournament_series', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('restoring')

    with op.batch_alter_table('tournament', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('restoring')
