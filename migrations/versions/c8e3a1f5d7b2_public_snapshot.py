"""the tournament's public side, built once per change for every process

``tournament_public_snapshot`` keeps what the public link shows (ranking, the
round's progress, the seating) as one compressed JSON value per tournament,
with the poll state it was built from and a claim so that one process builds
the next one while the others keep answering from this one.

Revision ID: c8e3a1f5d7b2
Revises: b6d2f8a4c3e1
Create Date: 2026-11-27 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c8e3a1f5d7b2'
down_revision = 'b6d2f8a4c3e1'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'tournament_public_snapshot',
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('tag', sa.String(length=120), nullable=False),
        sa.Column('built_at', sa.DateTime(), nullable=False),
        sa.Column('claimed_at', sa.DateTime(), nullable=True),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ['tournament_id'], ['tournament.id'],
            name=op.f('fk_tournament_public_snapshot_tournament_id_tournament'),
        ),
        sa.PrimaryKeyConstraint('tournament_id', name=op.f('pk_tournament_public_snapshot')),
    )


def downgrade():
    op.drop_table('tournament_public_snapshot')
