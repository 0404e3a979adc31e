"""the tournament's change count: a few rows its polls read instead of every table's version

``tournament_changes`` holds per tournament how many transactions changed one of
its tables' matches (``services.tournaments.counting`` counts each one as its last
statement before the commit) and when the last one did, in a few rows (``shard``,
by the match's id: two tables saving at once seldom wait for each other).  The public pages' and
the board's polls compare it instead of summing the versions of every match of
the tournament (a thousand at a big hall, on every poll).  No row: nothing counted
yet (0); the first change makes it.

Revision ID: a4c7e2f9b1d3
Revises: e4c7a9b2d6f1
Create Date: 2026-12-04 08:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'a4c7e2f9b1d3'
down_revision = 'e4c7a9b2d6f1'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'tournament_changes',
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('shard', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('count', sa.Integer(), nullable=False),
        sa.Column('changed_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ['tournament_id'], ['tournament.id'],
            name=op.f('fk_tournament_changes_tournament_id_tournament'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('tournament_id', 'shard', name=op.f('pk_tournament_changes')),
    )


def downgrade():
    op.drop_table('tournament_changes')
